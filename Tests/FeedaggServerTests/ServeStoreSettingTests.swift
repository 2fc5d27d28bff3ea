import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// `feedagg serve` with its store named in feeds.yaml (no --db), on the test PostgreSQL cluster.

@Suite("serve: the store named by feeds.yaml", .enabled(if: BenchServer.isAvailable, benchServerMissing))
struct ServeStoreSettingTests {
    @Test("settings: store: a PostgreSQL URL and store_password_file: serve pulls into it and answers from it; the password is in no output")
    func postgresFromSettings() async throws {
        let api = try await BenchServer.start(.init(orgs: [.init("acme", repos: 45)]))
        defer { api.stop() }
        let folder = try TemporaryFolder("feedagg-serve-store-setting")
        defer { folder.remove() }
        let cluster = try await PostgresCluster.shared()
        // A password with characters a URL would misread (`@`, `:`, `/`, `${`, `%`): it must be encoded.
        let role = try await cluster.createRole(password: "p@ss:w/rd${HOME}%41-" + UUID().uuidString)
        let database = try await cluster.createDatabase("serve", owner: role)
        let password = role.password
        let secret = try folder.write("db-password", password + "\n")
        chmod(secret.path, 0o600)
        let config = try folder.write(
            "feeds.yaml",
            reposYAML(
                [("acme", "acme")], base: api.baseURL, settings: ["store: \(database.url)", "store_password_file: db-password"]))
        var environment = TestBinary.cleanEnvironment
        environment["XDG_DATA_HOME"] = folder.path("data")
        environment["HOME"] = folder.path("home")
        let serve = try await ServeProcess.start(["--config", config.path], environment: environment)
        defer { serve.process.kill() }
        let client = ServeClient()
        try await ServeScheduleTests.eventually("45 items served") {
            guard let (body, _) = try? await client.text(serve.url("/api/items?limit=100")) else { return false }
            return ((try? jsonObject(body))?["items"] as? [Any])?.count == 45
        }
        let output = try await serve.stop()
        #expect(output.status == 0, "\(output.summary)")
        #expect(!output.stdout.contains(password) && !output.stderr.contains(password))
        #expect(!FileManager.default.fileExists(atPath: folder.path("data/feedagg")), "no SQLite store was made")
        // The items are in the database (read as another process would, with the password in PGPASSWORD).
        var reader = TestBinary.cleanEnvironment
        reader["PGPASSWORD"] = password
        let listed = try await TestBinary.runFeedagg(["feeds", "--db", database.url, "--format", "json"], environment: reader)
        #expect(listed.status == 0 && listed.stdout.contains("\"acme\""), "\(listed.summary)")
    }
}
