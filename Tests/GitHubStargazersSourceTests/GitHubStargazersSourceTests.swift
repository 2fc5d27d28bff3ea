import CurlHTTP
import FeedCore
import FeedReplay
import FeedaggKit
import FeedaggTesting
import Foundation
import Testing
import GitHubStargazersSource

// `github.stargazers` through the real stack: the recorded exchanges of Fixtures/github-stargazers-example/
// served by a ReplayServer on 127.0.0.1, the libcurl client and the engine. Expectations are
// read from the fixture files, so re-recording them (`feedagg record`) needs no test edit.

@Suite("github.stargazers: recorded fixture through ReplayServer + CurlClient + FeedEngine")
struct GitHubStargazersSourceTests {
    /// The recorded exchanges.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/github-stargazers-example")
    /// The keys of the feed the fixtures were recorded from.
    static let keys = ["collection": "example"]

    static func parameters(_ keys: [String: String] = keys) -> FeedParameters {
        FeedSourceConformance.feedParameters(keys, feedName: "example", sourceType: "github.stargazers")
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

    @Test("replaying the recording yields exactly the recorded items, in page order")
    func replay() async throws {
        let recorded = try FixtureStore.load(directory: Self.fixtures.path)
        let replay = try await ReplayServer.start(exchanges: recorded)
        let client = CurlClient()
        let result: FeedResult
        do {
            let feed = try SourceRegistry.builtIn.makeFeed(
                name: "example", sourceType: "github.stargazers", parameters: Self.parameters(),
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
        #expect(result.items.map(\.id) == (try Self.recordedIDs(recorded)))
        let first = try #require(result.items.first)
        #expect(!first.title.isEmpty)
        #expect(first.raw != nil)
    }

    @Test("a malformed item fails the page with its JSON path")
    func malformedItem() throws {
        let url = try #require(URL(string: "https://api.githubstargazers.example/collections/example/items"))
        let source = try GitHubStargazersSource(
            feed: FeedContext(name: "example", baseURL: url, pageSize: 30), parameters: Self.parameters())
        let body = #"[{"id": 1, "title": "ok"}, {"id": "two", "title": "bad"}]"#
        let page = FetchedPage(
            number: 1, url: url,
            response: HTTPResponse(
                status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8), url: url))
        #expect(throws: PageDecodeError.self) { try source.decodePage(page) }
        do {
            _ = try source.decodePage(page)
        } catch let error as PageDecodeError {
            #expect(error.path == "$[1].id")
        }
    }

    @Test("a feed without 'collection' is a configuration error")
    func missingCollection() throws {
        let url = try #require(URL(string: "https://api.githubstargazers.example"))
        #expect(throws: ConfigError.self) {
            try GitHubStargazersSource(feed: FeedContext(name: "example", baseURL: url, pageSize: 30), parameters: Self.parameters([:]))
        }
    }

    /// `github.stargazers:<id>` of every recorded item, pages ordered by their `page` query value
    /// (none: page 1), as the engine returns them whatever order the responses arrived in.
    static func recordedIDs(_ exchanges: [FixtureExchange]) throws -> [String] {
        func number(_ exchange: FixtureExchange) -> Int {
            URLComponents(string: exchange.url)?.queryItems?.first { $0.name == "page" }?.value
                .flatMap { Int($0) } ?? 1
        }
        return try exchanges.sorted { number($0) < number($1) }.flatMap { exchange in
            let body = try JSONSerialization.jsonObject(with: exchange.body)
            let elements = try #require(body as? [Any], "\(exchange.url): no item array")
            return elements.compactMap { ($0 as? [String: Any])?["id"] }.map { "github.stargazers:\($0)" }
        }
    }
}
