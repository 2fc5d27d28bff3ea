import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The throwaway PostgreSQL cluster every PostgreSQL test uses: it starts (as root too), answers
/// over TCP and its socket, hands out isolated databases and password roles, and goes away.
@Suite("PostgresCluster")
struct PostgresClusterTests {
    @Test("the shared cluster answers `select 1` over TCP and over its Unix socket")
    func selectOne() async throws {
        let cluster = try await PostgresCluster.shared()
        #expect(cluster.port != 5432)
        #expect(try await cluster.psql("select 1") == "1")  // the socket, as the superuser
        let database = try await cluster.createDatabase("smoke")
        let overTCP = try await ChildProcess.run(
            cluster.binDirectory.appendingPathComponent("psql"),
            arguments: ["-X", "-A", "-t", "-w", "-c", "select 1", database.url],
            environment: ["PATH": "/usr/bin:/bin", "PGCONNECT_TIMEOUT": "60"], timeout: .seconds(120))
        #expect(overTCP.status == 0, "\(overTCP.summary)")
        #expect(overTCP.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        #expect(database.url.hasPrefix("postgres://postgres@127.0.0.1:\(cluster.port)/smoke_"))
        #expect(try await cluster.psql("show server_version_num").hasPrefix(cluster.version))
    }

    @Test("every database is its own: a table made in one is absent from another")
    func databasesAreIsolated() async throws {
        let cluster = try await PostgresCluster.shared()
        let first = try await cluster.createDatabase("isolated")
        let second = try await cluster.createDatabase("isolated")
        #expect(first.name != second.name)
        _ = try await cluster.psql("create table t (x int); insert into t values (7)", database: first.name)
        #expect(try await cluster.psql("select x from t", database: first.name) == "7")
        #expect(try await cluster.psql("select count(*) from pg_tables where tablename = 't'", database: second.name) == "0")
    }

    @Test("a password role logs in with its password only", arguments: PasswordAuthentication.allCases)
    func passwordRole(_ authentication: PasswordAuthentication) async throws {
        let cluster = try await PostgresCluster.shared()
        let role = try await cluster.createRole(authentication: authentication)
        let database = try await cluster.createDatabase("owned", owner: role)
        #expect(try await cluster.psql("select current_user", database: database.name, role: role) == role.name)
        _ = try await cluster.psql("create table mine (x int)", database: database.name, role: role)
        await #expect(throws: PostgresClusterError.self) {
            try await cluster.psql("select 1", database: database.name, role: role, password: "wrong")
        }
        do {
            _ = try await cluster.psql("select 1", database: database.name, role: role, password: "wrong")
        } catch {
            #expect("\(error)".contains("password authentication failed"), "\(error)")
            #expect(!"\(error)".contains(role.password))
        }
        let stored = try await cluster.psql("select rolpassword from pg_authid where rolname = '\(role.name)'")
        #expect(stored.hasPrefix(authentication == .md5 ? "md5" : "SCRAM-SHA-256$"))
        #expect(!database.url.contains(role.password))
        #expect(cluster.url(database: database.name, role: role, includingPassword: true).contains(":\(role.password)@"))
    }

    @Test("the server runs as an unprivileged account, never root")
    func serverIsNotRoot() async throws {
        let cluster = try await PostgresCluster.shared()
        let pid = try #require(cluster.serverProcessID)
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let uidLine = try #require(status.split(separator: "\n").first { $0.hasPrefix("Uid:") })
        let uid = try #require(uidLine.split(separator: "\t").dropFirst().first.flatMap { UInt32($0) })
        #expect(uid != 0)
        if geteuid() != 0 { #expect(uid == geteuid()) }
    }

    @Test("a cluster of its own starts, and stop() ends its server and deletes its folder")
    func stopEndsTheServer() async throws {
        let cluster = try await PostgresCluster.start()
        let pid = try #require(cluster.serverProcessID)
        #expect(try await cluster.psql("select 2") == "2")
        #expect(FileManager.default.fileExists(atPath: cluster.folder.path))
        await cluster.stop()
        #expect(!FileManager.default.fileExists(atPath: cluster.folder.path))
        // `pg_ctl stop` waits for the postmaster to exit; allow for a zombie's reaping all the same.
        let deadline = ContinuousClock.now + .seconds(60)
        while kill(pid, 0) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(kill(pid, 0) != 0)
    }
}
