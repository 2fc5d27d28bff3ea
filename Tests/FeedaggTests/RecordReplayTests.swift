import FeedReplay
import FeedaggTesting
import Foundation
import Testing

// `feedagg record` against a loopback stand-in (StargazersStandIn: GitHub stargazers, which the
// bench server does not serve), then `feedagg pull --replay` of the recording: the same items as
// a live pull, and no token or cookie in the written files. The committed
// Fixtures/swift-stargazers/ is such a recording (FEEDAGG_RECORD_FIXTURES=1 rewrites it).

@Suite("feedagg record → pull --replay, through the real binary")
struct RecordReplayTests {
    static let token = "ghp_recordReplayTestToken0123456789"
    static let feed = "swift-stargazers"

    /// The feeds.yaml of the recordings; `baseURL` set only for the live pull.
    static func config(baseURL: String? = nil) -> String {
        """
        defaults:
          token: ${GITHUB_TOKEN}
        feeds:
          - name: \(feed)
            source: github.stargazers
            owner: apple
            repo: swift
            per_page: 3
        \(baseURL.map { "    base_url: \($0)" } ?? "")
        """
    }

    static var environment: [String: String] {
        var environment = TestBinary.cleanEnvironment
        environment["GITHUB_TOKEN"] = token
        return environment
    }

    /// Records the stand-in's stargazers into `out` with `feedagg record`.
    static func record(into out: URL, folder: TemporaryFolder, server: StargazersStandIn) async throws {
        let config = try folder.write("feeds.yaml", config())
        let output = try await TestBinary.runFeedagg(
            ["record", "--config", config.path, "--feed", feed, "--out", out.path, "--base-url", server.baseURL],
            environment: environment)
        #expect(output.status == 0, "\(output.summary)")
    }

    /// The `items` of a `--format json` page.
    static func items(_ output: ProcessOutput) throws -> [[String: Any]] {
        let page = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any], "\(output.summary)")
        return try #require(page["items"] as? [[String: Any]])
    }

    @Test("a recording replays to the items of a live pull, with the token and cookies scrubbed")
    func recordThenReplay() async throws {
        let folder = try TemporaryFolder("record-replay")
        defer { folder.remove() }
        let server = try await StargazersStandIn.start(token: Self.token)
        let out = folder.url.appendingPathComponent("recorded")
        let live: ProcessOutput
        do {
            try await Self.record(into: out, folder: folder, server: server)
            let liveConfig = try folder.write("live.yaml", Self.config(baseURL: server.baseURL))
            live = try await TestBinary.runFeedagg(
                ["pull", "--config", liveConfig.path, "--db", folder.url.appendingPathComponent("live.sqlite").path,
                 "--format", "json", "--per-page", "100"],
                environment: Self.environment)
        } catch {
            try await server.shutdown()
            throw error
        }
        let served = server.requestsServed
        try await server.shutdown()
        #expect(live.status == 0, "\(live.summary)")
        #expect(served == 6, "three pages recorded, three pulled live")

        // The files: one per page, addressed to the real API, no credential, no cookie.
        let files = try FileManager.default.contentsOfDirectory(at: out, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" && $0.lastPathComponent != FixtureFeedFile.fileName }
        #expect(files.count == 3)
        // Beside them, feed.json: the feed's keys (per_page included) for the source's tests, no token.
        let feed = try FixtureFeedFile.read(directory: out.path)
        #expect(feed.source == "github.stargazers")
        #expect(feed.parameters["per_page"] == "3" && feed.parameters["owner"] == "apple", "\(feed)")
        #expect(feed.parameters["token"] == nil, "feed.json holds the token")
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(!text.contains(Self.token), "\(file.lastPathComponent) holds the token")
            #expect(!text.contains(StargazersStandIn.sessionCookie), "\(file.lastPathComponent) holds the session cookie")
            #expect(!text.lowercased().contains("set-cookie"), "\(file.lastPathComponent) keeps a Set-Cookie header")
            #expect(!text.contains("127.0.0.1"), "\(file.lastPathComponent) names the stand-in's origin")
            #expect(text.contains("https://api.github.com/repos/apple/swift/stargazers?per_page=3"))
            #expect(!text.contains("Bearer ghp_"))
            let exchange = try FixtureStore.read(file)
            let authorization = exchange.requestHeaders.filter { $0.first == "Authorization" }.map { $0[1] }
            #expect(authorization == ["REDACTED"], "the token was sent, and is written redacted")
        }

        // Replay, with no token at all: the same items as the live pull.
        let replayConfig = try folder.write("replay.yaml", Self.config())
        var offline = TestBinary.cleanEnvironment
        offline["GITHUB_TOKEN"] = nil
        let replayed = try await TestBinary.runFeedagg(
            ["pull", "--config", replayConfig.path, "--replay", out.path, "--format", "json", "--per-page", "100"],
            environment: offline)
        #expect(replayed.status == 0, "\(replayed.summary)")
        let liveItems = try Self.items(live)
        let replayedItems = try Self.items(replayed)
        #expect(liveItems.count == StargazersStandIn.stargazers.count)
        #expect(replayedItems.map { $0["id"] as? String } == liveItems.map { $0["id"] as? String })
        #expect(
            NSArray(array: replayedItems).isEqual(to: liveItems),
            "replayed items differ from the live ones:\n\(replayed.stdout)\n---\n\(live.stdout)")
        let logins = Set(replayedItems.compactMap { $0["title"] as? String })
        #expect(logins == Set(StargazersStandIn.stargazers.map(\.login)))
    }

    @Test("Fixtures/swift-stargazers is what `feedagg record` writes from the stand-in")
    func committedFixtures() async throws {
        let folder = try TemporaryFolder("record-fixtures")
        defer { folder.remove() }
        let server = try await StargazersStandIn.start(token: Self.token)
        let out = folder.url.appendingPathComponent(Self.feed)
        do {
            try await Self.record(into: out, folder: folder, server: server)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()

        let committed = RepositoryPaths.fixtures.appendingPathComponent(Self.feed)
        if try TestPrerequisites.rewriting("FEEDAGG_RECORD_FIXTURES") {
            try? FileManager.default.removeItem(at: committed)
            try FileManager.default.copyItem(at: out, to: committed)
        }
        // Files are numbered in arrival order (pages 2 and 3 are fetched concurrently): compare by URL.
        func byURL(_ exchanges: [FixtureExchange]) -> [String: FixtureExchange] {
            Dictionary(exchanges.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        }
        let fresh = byURL(try FixtureStore.load(directory: out.path))
        let stored = byURL(try FixtureStore.load(directory: committed.path))
        #expect(fresh.keys.sorted() == stored.keys.sorted(), "re-record with FEEDAGG_RECORD_FIXTURES=1")
        for (url, exchange) in fresh {
            let old = try #require(stored[url])
            #expect(exchange.status == old.status)
            #expect(exchange.body == old.body, "\(url): body differs from the committed recording")
            #expect(
                exchange.responseHeaders.filter { $0.first?.lowercased() != "date" }
                    == old.responseHeaders.filter { $0.first?.lowercased() != "date" }, "\(url): headers differ")
        }
    }
}
