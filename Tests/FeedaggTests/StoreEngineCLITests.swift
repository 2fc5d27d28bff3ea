import FeedCore
import FeedStorage
import FeedStore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Testing

#if PostgreSQL
    import PostgresFeedStore
#endif

#if canImport(Glibc)
    import Glibc
#endif

// The commands on both store engines, through the real binary where a user would see it:
// `--db FILE` keeps SQLite, `--db postgres://…` uses PostgreSQL.

/// The engines a command can store into.
enum CLIEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// A new store: a file in `folder`, or a fresh database of the shared test cluster (its URL).
    func location(in folder: TemporaryFolder, role: PostgresRole? = nil) async throws -> String {
        switch self {
        case .sqlite: return folder.path("store.sqlite")
        case .postgres: return try await PostgresCluster.shared().createDatabase("cli", owner: role).url
        }
    }
}

/// The store at `location` (a path or a PostgreSQL URL), opened as a second process would.
func openDriver(_ location: String) throws -> any StoreDriver {
    guard PostgresURL.isPostgres(location) else { return try FeedStore.open(path: location) }
    #if PostgreSQL
        return try PostgresFeedStore.open(url: PostgresURL(location))
    #else
        throw StoreError(kind: .cannotOpen, path: location, operation: "open", detail: "built without the PostgreSQL trait")
    #endif
}

/// A pull through the aggregator into the store at `location`.
func pull(_ config: URL, location: String) async throws -> PullReport {
    var settings = PullSettings(configPath: config.path)
    settings.quiet = true
    settings.store = StoreLocation.parse(location)
    settings.retainItems = true
    return try await Aggregator(console: Console(), environment: [:]).pull(settings)
}

/// Every entry of the stream in the store at `location`, paged by cursor.
func showAll(_ config: URL, location: String, feeds: [String] = []) throws -> [StreamEntry] {
    var settings = ShowSettings(configPath: config.path)
    settings.store = StoreLocation.parse(location)
    settings.perPage = 7
    settings.feeds = feeds
    var entries: [StreamEntry] = []
    let aggregator = Aggregator(console: Console(), environment: [:])
    while true {
        let page = try aggregator.show(settings)
        entries += page.entries
        guard let next = page.nextCursor else { return entries }
        settings.after = next
    }
}

@Suite("Store engines through the binary")
struct StoreEngineCLITests {
    @Test("kill -9 in the middle of a pull: each feed is wholly old or wholly new, and the next pull resumes", arguments: CLIEngine.allCases)
    func killDuringPull(engine: CLIEngine) async throws {
        let (api, server, folder) = try await scene([
            "/orgs/fast/repos": VersionedAPI.records(1...5),
            "/orgs/slow/repos": VersionedAPI.records(101...125),
        ])
        defer { folder.remove() }
        let db = try await engine.location(in: folder)
        let config = try folder.write(
            "feeds.yaml",
            feedsYAML(reposFeed("fast", org: "fast", base: server.baseURL), reposFeed("slow", org: "slow", base: server.baseURL)))
        _ = try await pull(config, location: db)
        let old = Set(try showAll(config, location: db, feeds: ["slow"]).map(\.item.title))
        #expect(old.count == 25)

        api.edit("/orgs/fast/repos") { $0.append(VersionedAPI.Record(id: 6, name: "repo-6", updated: 1_800_000_000)) }
        api.edit("/orgs/slow/repos") { records in
            for index in records.indices { records[index].name += "-v2" }
        }
        api.slow("/orgs/slow/repos", page: 3, by: .seconds(120))
        api.resetLog()
        let process = try BackgroundProcess.start(
            try TestBinary.feedagg, arguments: ["pull", "--config", config.path, "--db", db, "-q"],
            environment: TestBinary.cleanEnvironment)
        let deadline = ContinuousClock.now + .seconds(120)
        var fastCommitted = false
        while ContinuousClock.now < deadline {
            let stuck = api.requests.contains { $0.path == "/orgs/slow/repos" && VersionedAPI.query($0)["page"] == "3" }
            if stuck, (try? stagedPages(db, feed: "slow")) == 2 {
                if (try? showAll(config, location: db, feeds: ["fast"]))?.count == 6 {
                    fastCommitted = true
                    break
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.send(SIGKILL)
        let killed = try await process.wait(timeout: .seconds(120))
        try #require(fastCommitted, "the pull never reached the kill point")
        #expect(killed.terminatedBySignal)

        #expect(try showAll(config, location: db, feeds: ["fast"]).count == 6, "fast: wholly new")
        #expect(Set(try showAll(config, location: db, feeds: ["slow"]).map(\.item.title)) == old, "slow: wholly old")
        let reopened = try openDriver(db)
        let checkpoint = try #require(try reopened.checkpoint(feed: "slow"))
        try reopened.close()
        #expect(checkpoint.resume?.nextPage == 3)
        #expect(checkpoint.pages == 2)

        api.slow("/orgs/slow/repos", page: 3, by: nil)
        api.resetLog()
        let resumed = try await pull(config, location: db)
        #expect(resumed.exitStatus == .success)
        let slowPages = api.requests.filter { $0.path == "/orgs/slow/repos" }.map { VersionedAPI.query($0)["page"] ?? "1" }
        // Page 3, the one the killed pull never got, then page 1 with the validator it had then
        // (the head check: 304, the listing did not move).
        #expect(slowPages == ["3", "1"], "the resumed pull asks only for the page the killed one never got, then checks page 1")
        #expect(api.requests.last { $0.path == "/orgs/slow/repos" }?.header("If-None-Match") != nil)
        #expect(Set(try showAll(config, location: db, feeds: ["slow"]).map(\.item.title)) == Set(old.map { $0 + "-v2" }))
        try await server.shutdown()
    }

    private func stagedPages(_ location: String, feed: String) throws -> Int? {
        let store = try openDriver(location)
        defer { try? store.close() }
        return try store.checkpoint(feed: feed)?.pages
    }

    @Test("pull, show, feeds and prune on PostgreSQL through the binary; prune keeps another configuration's feeds")
    func commandsOnPostgres() async throws {
        let (_, server, folder) = try await scene([
            "/orgs/one/repos": VersionedAPI.records(1...3),
            "/orgs/two/repos": VersionedAPI.records(11...14),
            "/orgs/other/repos": VersionedAPI.records(21...22),
        ])
        defer { folder.remove() }
        let db = try await CLIEngine.postgres.location(in: folder)
        let config = try folder.write(
            "feeds.yaml", feedsYAML(reposFeed("one", org: "one", base: server.baseURL), reposFeed("two", org: "two", base: server.baseURL)))
        let otherConfig = try folder.write("other.yaml", feedsYAML(reposFeed("other", org: "other", base: server.baseURL)))
        let pulled = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db, "-q"])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        let otherPull = try await TestBinary.runFeedagg(["pull", "--config", otherConfig.path, "--db", db, "-q"])
        #expect(otherPull.status == 0, "\(otherPull.stderr)")

        let shown = try await TestBinary.runFeedagg(["show", "--config", config.path, "--db", db, "--format", "json", "--per-page", "100"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let page = try #require(try JSONSerialization.jsonObject(with: shown.standardOutput) as? [String: Any])
        #expect((page["items"] as? [Any])?.count == 7)

        let feeds = try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", db, "--format", "json"])
        #expect(feeds.status == 0, "\(feeds.stderr)")
        #expect(feeds.stdout.contains("\"one\"") && feeds.stdout.contains("\"two\"") && feeds.stdout.contains("\"other\""))

        // `two` leaves this configuration: prune deletes it and keeps `other` (another configuration's).
        try Data(feedsYAML(reposFeed("one", org: "one", base: server.baseURL)).utf8).write(to: config)
        let pruned = try await TestBinary.runFeedagg(["prune", "--config", config.path, "--db", db, "--yes"])
        #expect(pruned.status == 0, "\(pruned.stdout)\(pruned.stderr)")
        let store = try openDriver(db)
        defer { try? store.close() }
        #expect(try store.feedNames() == ["one", "other"])
        try await server.shutdown()
    }

    @Test("`settings: store:` names the store without --db: a PostgreSQL URL with store_password_file, or a SQLite path beside feeds.yaml")
    func storeSetting() async throws {
        let (_, server, folder) = try await scene(["/orgs/one/repos": VersionedAPI.records(1...12)])
        defer { folder.remove() }
        let cluster = try await PostgresCluster.shared()
        let role = try await cluster.createRole()
        let database = try await cluster.createDatabase("setting", owner: role)
        let passwordFile = try folder.write("db-password", role.password + "\n")
        let feed = reposFeed("one", org: "one", base: server.baseURL)
        // The URL carries no password: it comes from the file (mode 600, token_file's rules).
        let yaml = "settings:\n  store: \(database.url)\n  store_password_file: db-password\n" + feedsYAML(feed)
        let config = try folder.write("feeds.yaml", yaml)
        chmod(passwordFile.path, 0o644)
        let refused = try await TestBinary.runFeedagg(["pull", "--config", config.path, "-q"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("store_password_file") && refused.stderr.contains("feeds.yaml:3"), "\(refused.stderr)")
        chmod(passwordFile.path, 0o600)
        var environment = TestBinary.cleanEnvironment
        environment["HOME"] = folder.path("home")
        environment["XDG_DATA_HOME"] = folder.path("data")
        let pulled = try await TestBinary.runFeedagg(["pull", "--config", config.path, "-q"], environment: environment)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        let listed = try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--format", "json"], environment: environment)
        #expect(listed.status == 0 && listed.stdout.contains("\"one\""), "\(listed.stderr)")
        let shown = try await TestBinary.runFeedagg(["show", "--config", config.path, "--format", "json"], environment: environment)
        #expect(shown.status == 0, "\(shown.stderr)")
        for output in [refused, pulled, listed, shown] {
            #expect(!output.stdout.contains(role.password) && !output.stderr.contains(role.password))
        }
        // The items are in the database, and no SQLite store was made.
        let store = try openDriver(cluster.url(database: database.name, role: role, includingPassword: true))
        defer { try? store.close() }
        #expect(try store.feedSummaries().first?.itemCount == 12)
        #expect(!FileManager.default.fileExists(atPath: folder.path("data/feedagg")))
        // --db still wins over the setting; a relative SQLite path is beside feeds.yaml.
        let sqliteConfig = try folder.write("sqlite.yaml", "settings:\n  store: stores/feeds.sqlite\n" + feedsYAML(feed))
        try FileManager.default.createDirectory(atPath: folder.path("stores"), withIntermediateDirectories: true)
        let local = try await TestBinary.runFeedagg(["pull", "--config", sqliteConfig.path, "-q"], environment: environment)
        #expect(local.status == 0, "\(local.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path("stores/feeds.sqlite")))
        try await server.shutdown()
    }

    @Test("two processes opening one fresh PostgreSQL database at once both succeed; it is migrated once")
    func concurrentMigration() async throws {
        let folder = try TemporaryFolder("feedagg-pg-migrate")
        defer { folder.remove() }
        let db = try await CLIEngine.postgres.location(in: folder)
        async let first = TestBinary.runFeedagg(["feeds", "--db", db])
        async let second = TestBinary.runFeedagg(["feeds", "--db", db])
        let outputs = try await [first, second]
        for output in outputs { #expect(output.status == 0, "\(output.stderr)") }
        let store = try openDriver(db)
        defer { try? store.close() }
        #expect(try store.schemaVersions() == ["v1", "v2", "v3", "v4", "v5", "v6", "v7"])
    }

    @Test("a PostgreSQL password is never printed: pull, feeds, show, and the errors of a wrong database or a refused connection")
    func passwordNeverPrinted() async throws {
        let (_, server, folder) = try await scene(["/orgs/one/repos": VersionedAPI.records(1...30)])
        defer { folder.remove() }
        let cluster = try await PostgresCluster.shared()
        let role = try await cluster.createRole()
        let database = try await cluster.createDatabase("secret", owner: role)
        let withPassword = cluster.url(database: database.name, role: role, includingPassword: true)
        let config = try folder.write("feeds.yaml", feedsYAML(reposFeed("one", org: "one", base: server.baseURL)))
        var outputs: [ProcessOutput] = []
        // The password in the URL.
        outputs.append(try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", withPassword, "--verbose", "--per-page", "5"]))
        #expect(outputs[0].status == 0, "\(outputs[0].stderr)")
        outputs.append(try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", withPassword]))
        outputs.append(try await TestBinary.runFeedagg(["show", "--config", config.path, "--db", withPassword, "--per-page", "5"]))
        #expect(outputs.last?.stderr.contains("next: feedagg show --after ") == true, "\(outputs.last?.stderr ?? "")")
        // The password in PGPASSWORD, the URL without it.
        var environment = TestBinary.cleanEnvironment
        environment["PGPASSWORD"] = role.password
        outputs.append(try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", database.url], environment: environment))
        #expect(outputs.last?.status == 0, "\(outputs.last?.stderr ?? "")")
        // `${VAR}` in the URL.
        environment["PGPASSWORD"] = nil
        environment["FEEDAGG_TEST_SECRET"] = role.password
        let interpolated = "postgres://\(role.name):${FEEDAGG_TEST_SECRET}@\(cluster.host):\(cluster.port)/\(database.name)"
        outputs.append(try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", interpolated], environment: environment))
        #expect(outputs.last?.status == 0, "\(outputs.last?.stderr ?? "")")
        // A database that does not exist, and a port nothing listens on: exit 5, naming host:port/db.
        let missing = cluster.url(database: "no_such_database", role: role, includingPassword: true)
        let refusedDatabase = try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", missing])
        #expect(refusedDatabase.status == 5)
        #expect(refusedDatabase.stderr.contains("no_such_database"), "\(refusedDatabase.stderr)")
        let closed = try RefusingPort()
        let refusedPort = try await TestBinary.runFeedagg([
            "feeds", "--config", config.path, "--db",
            "postgres://\(role.name):\(role.password)@127.0.0.1:\(closed.port)/\(database.name)",
        ])
        #expect(refusedPort.status == 5)
        #expect(refusedPort.stderr.contains("127.0.0.1:\(closed.port)/\(database.name)"), "\(refusedPort.stderr)")
        outputs += [refusedDatabase, refusedPort]
        for output in outputs {
            #expect(!output.stdout.contains(role.password) && !output.stderr.contains(role.password))
        }
        try await server.shutdown()
    }
}
