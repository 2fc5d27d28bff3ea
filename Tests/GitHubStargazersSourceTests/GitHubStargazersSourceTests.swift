import CurlHTTP
import FeedCore
import FeedReplay
import FeedaggKit
import FeedaggTesting
import Foundation
import GitHubStargazersSource
import Testing

// `github.stargazers` through the real stack: the exchanges of Fixtures/swift-stargazers/
// (recorded with `feedagg record` from StargazersStandIn, see RecordReplayTests) served by a
// ReplayServer on 127.0.0.1, the libcurl client and the engine. Expectations are read from the
// fixture files.

@Suite("github.stargazers: recorded fixture through ReplayServer + CurlClient + FeedEngine")
struct GitHubStargazersSourceTests {
    /// The recorded exchanges.
    static let fixtures = RepositoryPaths.fixtures.appendingPathComponent("swift-stargazers")
    /// The keys of the feed the fixtures were recorded from.
    static let keys = ["owner": "apple", "repo": "swift"]

    static func parameters(_ keys: [String: String] = keys) -> FeedParameters {
        FeedSourceConformance.feedParameters(keys, feedName: "swift-stargazers", sourceType: "github.stargazers")
    }

    static func source(baseURL: String = "https://api.github.com") throws -> GitHubStargazersSource {
        let url = try #require(URL(string: baseURL))
        return try GitHubStargazersSource(
            feed: FeedContext(name: "swift-stargazers", baseURL: url, pageSize: 30), parameters: parameters())
    }

    static func page(_ body: String) throws -> FetchedPage {
        let url = try #require(URL(string: "https://api.github.com/repos/apple/swift/stargazers?per_page=30"))
        return .sample(body, url: url)
    }

    @Test("follows the FeedSource rules (FeedSourceConformance)")
    func conformance() throws {
        let conformance = FeedSourceConformance(
            GitHubStargazersSource.self, parameters: Self.keys,
            samplePages: try FeedSourceConformance.pages(fromFixtures: Self.fixtures.path),
            registeredTypeNames: SourceRegistry.builtIn.descriptors.map(\.typeName))
        #expect(conformance.violations() == [])
    }

    @Test("is registered: feeds.yaml can use `source: github.stargazers`")
    func registered() {
        #expect(SourceRegistry.builtIn.type(named: "github.stargazers") == GitHubStargazersSource.self)
    }

    @Test("asks for /repos/:owner/:repo/stargazers in the star media type")
    func request() throws {
        let source = try Self.source(baseURL: "https://ghe.example.com/api/v3")
        #expect(source.firstPageURL.absoluteString == "https://ghe.example.com/api/v3/repos/apple/swift/stargazers")
        #expect(source.requestHeaders["Accept"] == "application/vnd.github.star+json")
        #expect(source.credentialHeaders.fields.isEmpty)
        #expect(source.ordering == .unordered)
    }

    @Test("replaying the recording yields exactly the recorded stars, in page order")
    func replay() async throws {
        let recorded = try FixtureStore.load(directory: Self.fixtures.path)
        #expect(recorded.count == 3, "Fixtures/swift-stargazers should hold three pages (3 + 3 + 1 stars)")
        let replay = try await ReplayServer.start(exchanges: recorded)
        let client = CurlClient()
        let result: FeedResult
        do {
            var keys = Self.keys
            keys["per_page"] = "3"
            let feed = try SourceRegistry.builtIn.makeFeed(
                name: "swift-stargazers", sourceType: "github.stargazers", parameters: Self.parameters(keys),
                baseURLOverride: replay.baseURL)
            result = await FeedEngine(transport: client, pageConcurrency: 4).pull(feed)
        } catch {
            client.shutdown()
            try await replay.shutdown()
            throw error
        }
        client.shutdown()
        try await replay.shutdown()

        #expect(result.error == nil, "feed failed: \(result.error.map(String.init(describing:)) ?? "")")
        #expect(result.pages == recorded.count)
        let expected = try Self.recordedStars(recorded)
        #expect(result.items.map(\.id) == expected.map { "github.stargazers:apple/swift:\($0.id)" })
        for (item, star) in zip(result.items, expected) {
            #expect(item.title == star.login)
            #expect(item.summary == "starred apple/swift")
            #expect(item.url == nil)
            #expect(item.author?.url == "https://github.com/\(star.login)")
            #expect(item.published == ISO8601.date(from: star.starredAt))
            #expect(item.updated == nil)
        }
    }

    @Test("a star without its user, or with a malformed date, fails the page with its JSON path")
    func malformed() throws {
        let source = try Self.source()
        let noUser = try Self.page(#"[{"starred_at": "2026-11-01T08:00:00Z", "user": {"login": "a", "id": 1}}, {"starred_at": "2026-11-02T08:00:00Z"}]"#)
        let noUserError = #expect(throws: PageDecodeError.self) { try source.decodePage(noUser) }
        #expect(noUserError?.path == "$[1]")
        let badDate = try Self.page(#"[{"starred_at": "yesterday", "user": {"login": "a", "id": 1}}]"#)
        let badDateError = #expect(throws: PageDecodeError.self) { try source.decodePage(badDate) }
        #expect(badDateError?.path == "$[0].starred_at")
        let plainUsers = try Self.page(#"[{"login": "a", "id": 1}]"#)
        let plainUsersError = #expect(throws: PageDecodeError.self) { try source.decodePage(plainUsers) }
        #expect(plainUsersError?.path == "$[0]")
    }

    @Test("a feed without 'owner' or 'repo' is a configuration error", arguments: ["owner", "repo"])
    func missingKey(key: String) throws {
        var keys = Self.keys
        keys[key] = nil
        let url = try #require(URL(string: "https://api.github.com"))
        #expect(throws: ConfigError.self) {
            try GitHubStargazersSource(
                feed: FeedContext(name: "s", baseURL: url, pageSize: 30), parameters: Self.parameters(keys))
        }
    }

    /// `(id, login, starred_at)` of every recorded star, pages ordered by their `page` query value.
    static func recordedStars(_ exchanges: [FixtureExchange]) throws -> [(id: Int, login: String, starredAt: String)] {
        func number(_ exchange: FixtureExchange) -> Int {
            URLComponents(string: exchange.url)?.queryItems?.first { $0.name == "page" }?.value.flatMap { Int($0) } ?? 1
        }
        return try exchanges.sorted { number($0) < number($1) }.flatMap { exchange in
            let elements = try #require(try JSONSerialization.jsonObject(with: exchange.body) as? [[String: Any]])
            return try elements.map { star in
                let user = try #require(star["user"] as? [String: Any])
                return (
                    try #require(user["id"] as? Int), try #require(user["login"] as? String),
                    try #require(star["starred_at"] as? String)
                )
            }
        }
    }
}
