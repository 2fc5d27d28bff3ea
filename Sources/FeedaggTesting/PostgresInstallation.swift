import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The PostgreSQL server programs on this machine, and the account that runs them.
///
/// Debian installs each major version under `/usr/lib/postgresql/VERSION/bin`; the highest one is
/// used (`FEEDAGG_PG_BINDIR` overrides the search with a directory holding `initdb`, `pg_ctl`,
/// `psql` and `pg_isready`). `initdb` and the server refuse to run as root, so when the tests run as
/// root (CI, this machine) every server program runs as the unprivileged `postgres` account that
/// Debian's package creates, through `setpriv`; otherwise as the current user.
struct PostgresInstallation: Sendable {
    /// The account a server program runs as when the test process is root: Debian's `postgres`
    /// (``serverAccountName``), by its user and group ids.
    struct ServerAccount: Sendable {
        let uid: uid_t
        let gid: gid_t
    }

    /// The name of the account server programs run as when the test process is root.
    static let serverAccountName = "postgres"

    /// The directory holding `initdb`, `pg_ctl`, `psql`, `pg_isready`.
    let binDirectory: URL
    /// The major version (the directory name under `/usr/lib/postgresql`), or the override's path.
    let version: String
    /// Set when the test process is root: who runs `initdb`, `pg_ctl` and the server.
    let serverAccount: ServerAccount?

    /// The variable naming a directory of PostgreSQL programs to use instead of the highest
    /// `/usr/lib/postgresql/*/bin`.
    static let binDirectoryVariable = "FEEDAGG_PG_BINDIR"

    /// Finds the programs and the account, or says what is missing and how to install it.
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws(PostgresClusterError)
        -> PostgresInstallation
    {
        let binDirectory: URL
        let version: String
        if let override = environment[binDirectoryVariable], !override.isEmpty {
            binDirectory = URL(fileURLWithPath: override)
            version = override
        } else {
            let root = "/usr/lib/postgresql"
            let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter {
                FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb")
            }
            guard let highest = versions.max(by: { Self.versionOrder($0, $1) }) else {
                throw PostgresClusterError(
                    "no PostgreSQL server found: no \(root)/*/bin/initdb (install Debian's `postgresql` "
                        + "package: `make deps`, or set \(binDirectoryVariable))")
            }
            binDirectory = URL(fileURLWithPath: "\(root)/\(highest)/bin")
            version = highest
        }
        for program in ["initdb", "pg_ctl", "psql", "pg_isready"] {
            let path = binDirectory.appendingPathComponent(program).path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw PostgresClusterError("PostgreSQL program \(path) is missing or not executable")
            }
        }
        return PostgresInstallation(binDirectory: binDirectory, version: version, serverAccount: try serverAccount())
    }

    /// `nil` unless root; then the `postgres` account, which must exist.
    private static func serverAccount() throws(PostgresClusterError) -> ServerAccount? {
        guard geteuid() == 0 else { return nil }
        let name = serverAccountName
        guard let entry = getpwnam(name) else {
            throw PostgresClusterError(
                "the tests run as root, and initdb refuses root: the server needs the unprivileged account "
                    + "'\(name)' (Debian's `postgresql` package creates it), which does not exist")
        }
        guard FileManager.default.isExecutableFile(atPath: setpriv) else {
            throw PostgresClusterError("the tests run as root and \(setpriv) (util-linux) is missing")
        }
        return ServerAccount(uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    private static let setpriv = "/usr/bin/setpriv"

    /// `true` when version directory `a` sorts below `b` (`9.6` < `10` < `15`).
    static func versionOrder(_ a: String, _ b: String) -> Bool {
        let left = a.split(separator: ".").map { Int($0) ?? -1 }
        let right = b.split(separator: ".").map { Int($0) ?? -1 }
        return left.lexicographicallyPrecedes(right)
    }

    /// The path of `program` in ``binDirectory``.
    func program(_ program: String) -> URL { binDirectory.appendingPathComponent(program) }

    /// The executable and arguments that run `program` with `arguments` as the server's account
    /// (through `setpriv` when root, directly otherwise).
    func asServerAccount(_ program: String, _ arguments: [String]) -> (executable: URL, arguments: [String]) {
        let path = self.program(program)
        guard let account = serverAccount else { return (path, arguments) }
        return (
            URL(fileURLWithPath: Self.setpriv),
            ["--reuid=\(account.uid)", "--regid=\(account.gid)", "--init-groups", "--", path.path] + arguments
        )
    }

    /// Gives `path` to the server's account (when root; nothing otherwise).
    func handOver(_ path: String) throws(PostgresClusterError) {
        guard let account = serverAccount else { return }
        guard chown(path, account.uid, account.gid) == 0 else {
            throw PostgresClusterError("cannot give \(path) to '\(Self.serverAccountName)': \(String(cString: strerror(errno)))")
        }
    }
}
