public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A throwaway PostgreSQL cluster for tests: `initdb` into a fresh temporary folder, a server on a
/// free loopback TCP port (and a Unix socket in that folder), stopped and deleted at the end.
///
/// Tests share one cluster per test process (``shared()``, started on first use) and take a fresh
/// database each (``createDatabase(_:owner:)``), so they run in parallel without seeing each
/// other's tables. Connections from 127.0.0.1 need no password (trust), except for roles made by
/// ``createRole(authentication:password:)``, which must give theirs (SCRAM-SHA-256 or MD5), so
/// tests can exercise secrets.
///
/// It works as root (CI): the server programs then run as Debian's unprivileged `postgres`
/// account (see ``PostgresInstallation``). It does not use or disturb a system cluster on 5432.
///
/// Cleanup does not depend on the test process ending cleanly: a watchdog process started before
/// `initdb` stops the server (`pg_ctl stop -m immediate`) and deletes the folder as soon as the
/// test process exits or is killed (see ``ClusterWatchdog``), or when ``stop()`` is called.
public final class PostgresCluster: Sendable {
    /// The address the server listens on.
    public let host = "127.0.0.1"
    /// The server's TCP port (free when chosen; never 5432 unless the system handed it out).
    public let port: Int
    /// The folder holding the server's Unix socket (`.s.PGSQL.<port>`): libpq's `host` for it.
    public var socketDirectory: String { folder.path }
    /// The superuser's name; it connects without a password.
    public let superuser = "postgres"
    /// The server's major version (`15`).
    public var version: String { installation.version }
    /// The cluster's folder (data directory, socket, log).
    public let folder: URL
    /// Its certificates, when started with TLS (``start(timeout:tls:)``, ``sharedTLS()``).
    public let tls: PostgresClusterTLS?

    let installation: PostgresInstallation
    private let watchdog: ClusterWatchdog
    private let sequence = Mutex(0)

    private init(
        port: Int, folder: URL, installation: PostgresInstallation, watchdog: ClusterWatchdog, tls: PostgresClusterTLS?
    ) {
        self.port = port
        self.folder = folder
        self.tls = tls
        self.installation = installation
        self.watchdog = watchdog
    }

    /// The cluster shared by every test of this process, started on first use (later callers wait
    /// for the same start). It lives until the process ends; its watchdog then removes it.
    public static func shared() async throws -> PostgresCluster {
        try await SharedPostgresCluster.instance.cluster()
    }

    /// The cluster with TLS (``start(timeout:tls:)`` with `tls: true`) shared by every test of this
    /// process, started on first use.
    public static func sharedTLS() async throws -> PostgresCluster {
        try await SharedPostgresCluster.tlsInstance.cluster()
    }

    /// The folder of the server's programs (`psql`, `pg_isready`, …) of ``version``.
    public var binDirectory: URL { installation.binDirectory }

    /// The server log's path.
    public var logPath: String { folder.appendingPathComponent("postgres.log").path }

    /// The data directory's path.
    public var dataDirectory: String { folder.appendingPathComponent("data").path }

    /// Starts a new cluster of its own (most tests want ``shared()``); ``stop()`` ends it.
    ///
    /// - Parameters:
    ///   - timeout: how long `initdb` and the server's start may take each (generous: the machine
    ///     may be loaded).
    ///   - tls: whether the server speaks TLS (`ssl = on`), with certificates `openssl` makes in
    ///     the cluster's folder (``PostgresClusterTLS``).
    public static func start(timeout: Duration = .seconds(120), tls: Bool = false) async throws -> PostgresCluster {
        let installation = try PostgresInstallation.locate()
        // /tmp rather than $TMPDIR: the `postgres` account must reach it, and a Unix socket path
        // must stay under 108 bytes.
        let folder = URL(fileURLWithPath: "/tmp/feedagg-pg-\(UUID().uuidString.prefix(13).lowercased())")
        let watchdog = try ClusterWatchdog.start(folder: folder.path, pgControl: installation.asServerAccount("pg_ctl", []))
        do {
            do {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            } catch {
                throw PostgresClusterError("cannot create the cluster folder \(folder.path): \(error)")
            }
            try installation.handOver(folder.path)
            var certificates: PostgresClusterTLS?
            if tls {
                let made = try await PostgresClusterTLS.make(in: folder.appendingPathComponent("tls"))
                // The server reads its key, certificate and the CA's (its key must be its own, 0600).
                for path in [made.folder.path, made.serverKey, made.serverCertificate, made.caCertificate] {
                    try installation.handOver(path)
                }
                certificates = made
            }
            try await initialise(installation, folder: folder, timeout: timeout, tls: certificates)
            let port = try await startServer(installation, folder: folder, timeout: timeout)
            let cluster = PostgresCluster(
                port: port, folder: folder, installation: installation, watchdog: watchdog, tls: certificates)
            try await cluster.prepareRoles()
            return cluster
        } catch {
            watchdog.fire()
            await watchdog.waitUntilDone()
            throw error
        }
    }

    /// Stops the server at once and deletes its folder (through the watchdog); returns when done.
    /// Not for the ``shared()`` cluster.
    public func stop() async {
        watchdog.fire()
        await watchdog.waitUntilDone()
    }

    /// The server's process id (the postmaster), from `postmaster.pid`; `nil` when it is not running.
    public var serverProcessID: Int32? {
        guard let text = try? String(contentsOfFile: "\(dataDirectory)/postmaster.pid", encoding: .utf8),
            let first = text.split(separator: "\n").first, let pid = Int32(first), SystemSignal.send(0, to: pid) == 0
        else { return nil }
        return pid
    }

    // MARK: - Start

    /// Runs `initdb` and writes the configuration: loopback only, the socket in `folder`, no
    /// durability (a throwaway cluster), trust except for the password groups' members; with
    /// `tls`, TLS on and its roles' rules first.
    private static func initialise(
        _ installation: PostgresInstallation, folder: URL, timeout: Duration, tls: PostgresClusterTLS?
    ) async throws {
        let data = folder.appendingPathComponent("data").path
        let (executable, arguments) = installation.asServerAccount(
            "initdb",
            ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"])
        let result = try await ChildProcess.run(
            executable, arguments: arguments, environment: serverEnvironment(folder), timeout: timeout)
        guard result.status == 0, !result.terminatedBySignal else {
            throw PostgresClusterError("initdb into \(data) failed: \(result.summary)")
        }
        let settings = """

            # feedagg's test harness: a throwaway cluster on loopback.
            listen_addresses = '127.0.0.1'
            unix_socket_directories = '\(folder.path)'
            max_connections = 300
            shared_buffers = 64MB
            fsync = off
            synchronous_commit = off
            full_page_writes = off
            log_min_messages = warning
            """ + (tls.map { "\n" + $0.serverSettings + "\n" } ?? "")
        // Members of these groups must give a password (SCRAM or MD5); everyone else is trusted.
        let hba = (tls?.hostRules ?? "") + """
            # TYPE  DATABASE  USER                                ADDRESS       METHOD
            local   all       +\(PasswordAuthentication.scramSHA256.group)                 scram-sha-256
            local   all       +\(PasswordAuthentication.md5.group)                         md5
            local   all       all                                               trust
            host    all       +\(PasswordAuthentication.scramSHA256.group)    127.0.0.1/32  scram-sha-256
            host    all       +\(PasswordAuthentication.md5.group)            127.0.0.1/32  md5
            host    all       all                                 127.0.0.1/32  trust

            """
        do {
            let conf = FileHandle(forWritingAtPath: "\(data)/postgresql.conf")
            guard let conf else { throw PostgresClusterError("\(data)/postgresql.conf is missing after initdb") }
            try conf.seekToEnd()
            try conf.write(contentsOf: Data(settings.utf8))
            try conf.close()
            // Written in place (not replaced), so the file keeps its owner.
            let hbaFile = FileHandle(forWritingAtPath: "\(data)/pg_hba.conf")
            guard let hbaFile else { throw PostgresClusterError("\(data)/pg_hba.conf is missing after initdb") }
            try hbaFile.truncate(atOffset: 0)
            try hbaFile.write(contentsOf: Data(hba.utf8))
            try hbaFile.close()
        } catch let error as PostgresClusterError {
            throw error
        } catch {
            throw PostgresClusterError("cannot write the configuration of \(data): \(error)")
        }
    }

    /// Starts the server on a free loopback port (another one if a parallel process took it
    /// meanwhile) and waits until it accepts connections; returns the port.
    private static func startServer(_ installation: PostgresInstallation, folder: URL, timeout: Duration) async throws
        -> Int
    {
        let data = folder.appendingPathComponent("data").path
        let log = folder.appendingPathComponent("postgres.log").path
        var lastFailure = ""
        for _ in 1...5 {
            let port = try freeLoopbackPort()
            let (executable, arguments) = installation.asServerAccount(
                "pg_ctl",
                ["start", "-w", "-t", "\(Int(timeout.seconds))", "-s", "-D", data, "-l", log, "-o", "-p \(port)"])
            let result = try await ChildProcess.run(
                executable, arguments: arguments, environment: serverEnvironment(folder), timeout: timeout + .seconds(30))
            let logText = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if result.status == 0, !result.terminatedBySignal {
                // pg_ctl -w saw the server ready; check that TCP answers too.
                let ready = try await ChildProcess.run(
                    installation.program("pg_isready"),
                    arguments: ["-q", "-h", "127.0.0.1", "-p", "\(port)", "-t", "\(Int(timeout.seconds))"],
                    environment: serverEnvironment(folder), timeout: timeout + .seconds(30))
                guard ready.status == 0 else {
                    throw PostgresClusterError(
                        "the server in \(data) started but does not answer on 127.0.0.1:\(port): \(ready.summary)\n"
                            + "--- log:\n\(logText.suffix(3_000))")
                }
                return port
            }
            lastFailure = "pg_ctl start on port \(port): \(result.summary)\n--- log:\n\(logText.suffix(3_000))"
            // Only a port taken between choosing and binding is worth another try.
            guard logText.contains("could not bind") || logText.contains("Address already in use") else { break }
        }
        throw PostgresClusterError("cannot start the PostgreSQL server in \(data): \(lastFailure)")
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released).
    private static func freeLoopbackPort() throws(PostgresClusterError) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgresClusterError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw PostgresClusterError("bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw PostgresClusterError("getsockname: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The environment of `initdb`, `pg_ctl` and the server: no inherited `PG*` variables.
    static func serverEnvironment(_ folder: URL) -> [String: String] {
        ["PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": folder.path, "TZ": "UTC"]
    }

    /// The group roles whose members must authenticate with a password.
    private func prepareRoles() async throws {
        let groups = PasswordAuthentication.allCases.map { "CREATE ROLE \($0.group) NOLOGIN;" }.joined(separator: " ")
        let tlsRoles =
            tls == nil
            ? "" : " CREATE ROLE \(PostgresClusterTLS.clientRole) LOGIN CREATEDB; CREATE ROLE \(PostgresClusterTLS.tlsOnlyRole) LOGIN CREATEDB;"
        _ = try await psql(groups + tlsRoles)
    }

    /// A number unique within this cluster, for names.
    func nextSequenceNumber() -> Int {
        sequence.withLock {
            $0 += 1
            return $0
        }
    }
}

/// Holds the process's shared cluster; the first caller starts it, the others wait for it.
private actor SharedPostgresCluster {
    static let instance = SharedPostgresCluster(tls: false)
    static let tlsInstance = SharedPostgresCluster(tls: true)
    private let tls: Bool
    private var starting: Task<PostgresCluster, any Error>?

    private init(tls: Bool) { self.tls = tls }

    func cluster() async throws -> PostgresCluster {
        if let starting { return try await starting.value }
        let tls = self.tls
        let task = Task { try await PostgresCluster.start(tls: tls) }
        starting = task
        return try await task.value
    }
}
