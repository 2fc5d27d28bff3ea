import FeedStore
import FeedaggTesting
import Foundation
import LoopbackServer
import Testing

// A store per configuration (issue 14, item 2) and the store file's own checks (item 15), through
// the built binary: two project folders, the default data directory in a temporary folder.

/// A sandbox for `feedagg`: its own HOME, XDG_DATA_HOME and XDG_CONFIG_HOME under one temporary
/// folder, so no test reads or writes the developer's files, and project folders inside it.
struct Sandbox {
    let folder: TemporaryFolder
    var root: URL { folder.url }
    var dataHome: URL { root.appendingPathComponent("data") }
    var configHome: URL { root.appendingPathComponent("config") }
    var home: URL { root.appendingPathComponent("home") }

    init() throws {
        folder = try TemporaryFolder("feedagg-sandbox")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    /// The clean test environment pointed at the sandbox, plus `extra` (a `nil` value removes a variable).
    func environment(_ extra: [String: String?] = [:]) -> [String: String] {
        var environment = TestBinary.cleanEnvironment
        environment["HOME"] = home.path
        environment["XDG_DATA_HOME"] = dataHome.path
        environment["XDG_CONFIG_HOME"] = configHome.path
        for (name, value) in extra { environment[name] = value }
        return environment
    }

    /// A folder `name` inside the sandbox (created), e.g. a project.
    func directory(_ name: String) throws -> URL {
        let url = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `text` to `path` (relative to the sandbox), creating folders; returns its URL.
    @discardableResult
    func write(_ path: String, _ text: String) throws -> URL {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Runs `feedagg arguments` in `directory` (the sandbox root when `nil`).
    func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil) async throws
        -> ProcessOutput
    {
        try await TestBinary.runFeedagg(
            arguments, environment: environment ?? self.environment(), currentDirectory: directory ?? root)
    }

    /// The default stores created so far.
    func stores() throws -> [String] {
        let directory = dataHome.appendingPathComponent("feedagg/stores")
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".sqlite") }.sorted()
    }

    func remove() { folder.remove() }
}

/// The item ids of a `--format json` page.
func itemIDs(_ output: ProcessOutput) throws -> [String] {
    let object = try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any]
    let items = try #require(object?["items"] as? [[String: Any]], "not a JSON page:\n\(output.summary)")
    return items.compactMap { $0["id"] as? String }
}

/// The feeds of `feedagg feeds --format json`.
func feedList(_ output: ProcessOutput) throws -> [[String: Any]] {
    let object = try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any]
    return try #require(object?["feeds"] as? [[String: Any]], "not a feeds listing:\n\(output.summary)")
}

@Suite("A store per configuration: default store per feeds.yaml, ownership, prune, --db checks")
struct StorePerConfigTests {
    /// A server with org `acme` (5 repositories) and org `beta` (3).
    static func server() async throws -> LoopbackHTTPServer {
        let api = VersionedAPI()
        api.set("/orgs/acme/repos", VersionedAPI.records(1...5))
        api.set("/orgs/beta/repos", VersionedAPI.records(101...103))
        api.set("/orgs/gone/repos", VersionedAPI.records(501...502))
        return try await api.start()
    }

    /// Writes `p/feeds.yaml` with one repository feed per org of ``server()`` (named after it),
    /// pulls it into `s.sqlite` (expecting exit 0) and stops the server.
    static func pulledStore(_ sandbox: Sandbox, orgs: [String]) async throws -> (config: URL, db: String, baseURL: String) {
        let server = try await Self.server()
        let db = sandbox.root.appendingPathComponent("s.sqlite").path
        let config = try sandbox.write(
            "p/feeds.yaml", feedsYAML(orgs.map { reposFeed($0, org: $0, base: server.baseURL) }))
        let pulled = try await sandbox.run(["pull", "-q", "--config", config.path, "--db", db])
        #expect(pulled.status == 0, "\(pulled.summary)")
        try await server.shutdown()
        return (config, db, server.baseURL)
    }

    @Test("two projects, the default store: each feeds.yaml gets its own store; prune in B deletes nothing of A")
    func twoProjectsDefaultStores() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let server = try await Self.server()
        let a = try sandbox.directory("project-a")
        let b = try sandbox.directory("project-b")
        try sandbox.write("project-a/feeds.yaml", feedsYAML(reposFeed("acme", org: "acme", base: server.baseURL)))
        try sandbox.write("project-b/feeds.yaml", feedsYAML(reposFeed("beta", org: "beta", base: server.baseURL)))

        let pullA = try await sandbox.run(["pull", "-q"], in: a)
        #expect(pullA.status == 0, "\(pullA.summary)")
        let pullB = try await sandbox.run(["pull", "-q"], in: b)
        #expect(pullB.status == 0, "\(pullB.summary)")
        try await server.shutdown()

        let stores = try sandbox.stores()
        #expect(stores.count == 2, "\(stores)")
        #expect(stores.contains { $0.hasPrefix("project-a-feeds-") } && stores.contains { $0.hasPrefix("project-b-feeds-") })

        let prune = try await sandbox.run(["prune", "--yes"], in: b)
        #expect(prune.status == 0, "\(prune.summary)")
        #expect(prune.stdout.hasPrefix("nothing to prune"), "\(prune.summary)")
        let showA = try await sandbox.run(["show", "--format", "json"], in: a)
        #expect(try itemIDs(showA).count == 5, "\(showA.summary)")
        let feedsB = try await sandbox.run(["feeds", "--format", "json"], in: b)
        #expect(try feedList(feedsB).map { $0["name"] as? String } == ["beta"], "B's store holds only B's feeds")
    }

    @Test("two configurations sharing one --db: prune in B keeps A's feeds; feeds labels them as A's")
    func twoConfigsSharingOneStore() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let server = try await Self.server()
        let db = sandbox.root.appendingPathComponent("shared.sqlite").path
        let configA = try sandbox.write("a/feeds.yaml", feedsYAML(reposFeed("acme", org: "acme", base: server.baseURL)))
        let configB = try sandbox.write(
            "b/feeds.yaml",
            feedsYAML(reposFeed("beta", org: "beta", base: server.baseURL), reposFeed("gone", org: "gone", base: server.baseURL)))
        for config in [configA, configB] {
            let pulled = try await sandbox.run(["pull", "-q", "--config", config.path, "--db", db])
            #expect(pulled.status == 0, "\(pulled.summary)")
        }
        try await server.shutdown()
        // B drops 'gone'.
        try sandbox.write("b/feeds.yaml", feedsYAML(reposFeed("beta", org: "beta", base: server.baseURL)))
        let ownerA = FeedStore.canonicalConfigPath(configA.path)

        let feeds = try await sandbox.run(["feeds", "--config", configB.path, "--db", db])
        #expect(feeds.stdout.contains("acme (from \(ownerA))"), "\(feeds.summary)")
        #expect(!feeds.stdout.contains("acme (removed"), "\(feeds.summary)")
        #expect(feeds.stdout.contains("gone (removed; `feedagg prune` deletes it)"), "\(feeds.summary)")
        let json = try feedList(await sandbox.run(["feeds", "--config", configB.path, "--db", db, "--format", "json"]))
        let standing = Dictionary(uniqueKeysWithValues: json.map { ($0["name"] as? String ?? "", $0["standing"] as? String ?? "") })
        #expect(standing == ["beta": "declared", "acme": "other_config", "gone": "removed"])

        let prune = try await sandbox.run(["prune", "--config", configB.path, "--db", db, "--yes"])
        #expect(prune.status == 0, "\(prune.summary)")
        #expect(prune.stdout == "deleted feed 'gone' (2 items)\n", "\(prune.summary)")
        #expect(prune.stderr.contains("keeping feed 'acme': it belongs to \(ownerA)"), "\(prune.summary)")
        let showA = try await sandbox.run(["show", "--config", configA.path, "--db", db, "--format", "json"])
        #expect(try itemIDs(showA).count == 5, "A's items survive B's prune: \(showA.summary)")
        let pruneA = try await sandbox.run(["prune", "--config", configA.path, "--db", db, "--yes"])
        #expect(pruneA.stdout.hasPrefix("nothing to prune"), "beta belongs to B: \(pruneA.summary)")
    }

    @Test("show and feeds with --db work from a folder without any feeds.yaml: every stored feed, by name")
    func readingAStoreWithoutConfiguration() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (config, db, _) = try await Self.pulledStore(sandbox, orgs: ["beta", "acme"])
        let empty = try sandbox.directory("empty")

        let show = try await sandbox.run(["show", "--db", db, "--format", "json", "--per-page", "50"], in: empty)
        #expect(show.status == 0, "\(show.summary)")
        #expect(try itemIDs(show).count == 8)
        let one = try await sandbox.run(["show", "--db", db, "--format", "json", "--feed", "acme"], in: empty)
        #expect(try itemIDs(one).count == 5, "\(one.summary)")
        let typo = try await sandbox.run(["show", "--db", db, "--feed", "acm"], in: empty)
        #expect(typo.status == 2 && typo.stderr.contains("did you mean 'acme'?"), "\(typo.summary)")
        let feeds = try await sandbox.run(["feeds", "--db", db, "--format", "json"], in: empty)
        #expect(feeds.status == 0, "\(feeds.summary)")
        let list = try feedList(feeds)
        #expect(list.map { $0["name"] as? String } == ["acme", "beta"], "by name (feeds pulled together have no stored order)")
        #expect(list.allSatisfy { $0["config"] as? String == FeedStore.canonicalConfigPath(config.path) })

        let noStore = try await sandbox.run(["show"], in: empty)
        #expect(noStore.status == 2, "\(noStore.summary)")
        #expect(noStore.stderr.contains("no feeds.yaml found"), "\(noStore.summary)")
    }

    @Test("prune lists what it deletes; without a terminal it needs --yes (exit 2, nothing deleted)")
    func pruneNeedsConfirmation() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (config, db, baseURL) = try await Self.pulledStore(sandbox, orgs: ["acme", "gone"])
        try sandbox.write("p/feeds.yaml", feedsYAML(reposFeed("acme", org: "acme", base: baseURL)))

        let refused = try await sandbox.run(["prune", "--config", config.path, "--db", db])
        #expect(refused.status == 2, "\(refused.summary)")
        #expect(refused.stderr.contains("would delete feed 'gone' (2 items)"), "\(refused.summary)")
        #expect(refused.stderr.contains("pass --yes to confirm when not on a terminal"), "\(refused.summary)")
        #expect(refused.stdout.isEmpty)
        let feeds = try feedList(await sandbox.run(["feeds", "--db", db, "--format", "json"]))
        #expect(feeds.count == 2, "nothing deleted")

        let pruned = try await sandbox.run(["prune", "--config", config.path, "--db", db, "-y"])
        #expect(pruned.status == 0 && pruned.stdout == "deleted feed 'gone' (2 items)\n", "\(pruned.summary)")
    }

    @Test(
        "prune on a terminal asks: 'n' keeps everything, 'y' deletes",
        .enabled(
            if: TestPrerequisites.runs(needing: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")),
            "needs script(1) from util-linux"))
    func pruneAsksOnATerminal() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let (config, db, baseURL) = try await Self.pulledStore(sandbox, orgs: ["acme", "gone"])
        try sandbox.write("p/feeds.yaml", feedsYAML(reposFeed("acme", org: "acme", base: baseURL)))

        /// `prune` on a pseudo-terminal (script(1)), answering `answer`.
        func prune(answering answer: String) async throws -> ProcessOutput {
            let command = try [TestBinary.feedagg.path, "prune", "--config", config.path, "--db", db]
                .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            let shell = "printf '\(answer)\\n' | /usr/bin/script -qec \"\(command)\" /dev/null"
            return try await ChildProcess.run(
                URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", shell], environment: sandbox.environment(),
                currentDirectory: sandbox.root, timeout: .seconds(60))
        }
        let declined = try await prune(answering: "n")
        #expect(declined.status == 0, "\(declined.summary)")
        #expect(declined.stdout.contains("will delete feed 'gone' (2 items)"), "\(declined.summary)")
        #expect(declined.stdout.contains("Delete 1 feed from \(db)? [y/N]"), "\(declined.summary)")
        #expect(declined.stdout.contains("nothing deleted"), "\(declined.summary)")
        #expect(try feedList(await sandbox.run(["feeds", "--db", db, "--format", "json"])).count == 2)

        let accepted = try await prune(answering: "y")
        #expect(accepted.status == 0, "\(accepted.summary)")
        #expect(accepted.stdout.contains("deleted feed 'gone' (2 items)"), "\(accepted.summary)")
        let left = try feedList(await sandbox.run(["feeds", "--db", db, "--format", "json"]))
        #expect(left.map { $0["name"] as? String } == ["acme"])
    }

    @Test("a feed stored without an owner (before schema v4) is kept by prune unless --include-unowned")
    func unownedFeedsAreKept() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let db = sandbox.root.appendingPathComponent("old.sqlite").path
        let store = try FeedStore.open(path: db)
        try store.commit(
            [FeedPull(feed: "old", source: "github.repos", items: [], complete: true, stats: PullStats(pages: 1, requests: 1))],
            feedOrder: ["old"])
        try store.close()
        let config = try sandbox.write("p/feeds.yaml", feedsYAML(reposFeed("acme", org: "acme", base: "http://127.0.0.1:9")))

        let feeds = try await sandbox.run(["feeds", "--config", config.path, "--db", db])
        #expect(feeds.stdout.contains("old (not declared; stored by an older feedagg, owner unknown)"), "\(feeds.summary)")
        let kept = try await sandbox.run(["prune", "--config", config.path, "--db", db, "--yes"])
        #expect(kept.status == 0 && kept.stdout.hasPrefix("nothing to prune"), "\(kept.summary)")
        #expect(kept.stderr.contains("keeping feed 'old' (0 items): stored by an older feedagg"), "\(kept.summary)")
        let pruned = try await sandbox.run(["prune", "--config", config.path, "--db", db, "--yes", "--include-unowned"])
        #expect(pruned.status == 0 && pruned.stdout == "deleted feed 'old' (0 items)\n", "\(pruned.summary)")
    }

    @Test("the store shared by every configuration before: a note names it and how to read it with --db")
    func legacyStoreIsPointedAt() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let legacy = try FeedStore.defaultPath(environment: sandbox.environment())
        try FeedStore.open(path: legacy).close()
        let project = try sandbox.directory("p")
        try sandbox.write("p/feeds.yaml", feedsYAML(reposFeed("acme", org: "acme", base: "http://127.0.0.1:9")))

        let show = try await sandbox.run(["show"], in: project)
        #expect(show.status == 5, "no store of its own yet: \(show.summary)")
        #expect(show.stderr.contains("note: feedagg now keeps one store per feeds.yaml"), "\(show.summary)")
        #expect(show.stderr.contains("read it with `--db \(legacy)`"), "\(show.summary)")
        let old = try await sandbox.run(["show", "--db", legacy], in: project)
        #expect(old.status == 0, "the old store still reads: \(old.summary)")
    }

    @Test("the store file is created with mode 0600, its -wal and -shm too")
    func storeFileMode() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let server = try await Self.server()
        let project = try sandbox.directory("p")
        try sandbox.write("p/feeds.yaml", feedsYAML(reposFeed("acme", org: "acme", base: server.baseURL)))
        let pulled = try await sandbox.run(["pull", "-q"], in: project)
        #expect(pulled.status == 0, "\(pulled.summary)")
        try await server.shutdown()
        let stores = try sandbox.stores()
        #expect(stores.count == 1, "the default location's directories are created")
        func mode(_ path: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        let path = sandbox.dataHome.appendingPathComponent("feedagg/stores/\(stores[0])").path
        #expect(try mode(path) == 0o600)

        // While a store is open, its write-ahead log and shared memory exist: the same mode.
        let db = sandbox.root.appendingPathComponent("open.sqlite").path
        let store = try FeedStore.open(path: db)
        defer { try? store.close() }
        #expect(try store.integrityCheck())
        for file in [db, db + "-wal", db + "-shm"] {
            #expect(try mode(file) == 0o600, "\(file)")
        }
    }

    @Test("--db into a missing directory is an error naming it; --db at a file that is not a store says so")
    func dbPathChecks() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let config = try sandbox.write("p/feeds.yaml", feedsYAML(reposFeed("acme", org: "acme", base: "http://127.0.0.1:9")))
        let missing = sandbox.root.appendingPathComponent("no-such-dir/s.sqlite").path
        let pull = try await sandbox.run(["pull", "-q", "--config", config.path, "--db", missing])
        #expect(pull.status == 5, "\(pull.summary)")
        #expect(
            pull.stderr.contains("the directory \(sandbox.root.appendingPathComponent("no-such-dir").path) does not exist"),
            "\(pull.summary)")
        #expect(!FileManager.default.fileExists(atPath: missing))

        let text = try sandbox.write("notes.txt", "just some notes\nnot a database\n")
        for command in [["show"], ["feeds"], ["pull", "-q"]] {
            let output = try await sandbox.run(command + ["--config", config.path, "--db", text.path])
            #expect(output.status == 5, "\(command): \(output.summary)")
            #expect(output.stderr.contains("\(text.path) is not a feedagg store"), "\(command): \(output.summary)")
            #expect(!output.stderr.contains("damaged"), "\(command): \(output.summary)")
        }
        #expect(try String(contentsOf: text, encoding: .utf8) == "just some notes\nnot a database\n", "left untouched")
    }
}
