/// `Tests/<Name>SourceTests/<Name>SourceTests.swift`: the generated tests. Everything they expect
/// comes from the fixture folder: the feed's parameters from its `feed.json`, the item ids from
/// the recorded pages decoded through the source, the malformed body from a recorded item with a
/// required member removed; re-recording it with `feedagg record` never needs a test edit.
struct TestsTemplate {
    let request: ScaffoldRequest

    var text: String {
        let module = request.module
        let typeName = request.typeName
        let itemsPath = request.pagination == .link ? "[]" : #"["items"]"#
        return ##"""
            import CurlHTTP
            import FeedCore
            import FeedReplay
            import FeedaggKit
            import FeedaggTesting
            import Foundation
            import Testing
            import \##(module)

            // `\##(typeName)` through the real stack: the recorded exchanges of Fixtures/\##(request.fixtureName)/
            // served by a ReplayServer on 127.0.0.1, the libcurl client and the engine. Everything expected
            // is read from the fixture (feed.json, the recorded pages decoded through the source), so
            // re-recording it with `feedagg record --feed NAME --out <that folder>` needs no test edit.

            @Suite("\##(typeName): recorded fixture through ReplayServer + CurlClient + FeedEngine")
            struct \##(request.testModule) {
                /// The recorded exchanges and their feed.json.
                static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                    .appendingPathComponent("Fixtures/\##(request.fixtureName)")
                /// Where a page's item array is in its body (`[]`: the body is the array).
                static let itemsPath: [String] = \##(itemsPath)

                /// The feed the fixtures were recorded from (`feed.json`, written by `feedagg record`).
                static func recordedFeed() throws -> FixtureFeedFile {
                    try FixtureFeedFile.read(directory: fixtures.path)
                }

                static func parameters(_ keys: [String: String]) -> FeedParameters {
                    FeedSourceConformance.feedParameters(keys, feedName: "example", sourceType: "\##(typeName)")
                }

                /// The source as the recorded feed declares it (its `per_page` and other keys included).
                static func source(_ feed: FixtureFeedFile, baseURL: URL? = nil) throws -> Feed {
                    try SourceRegistry.builtIn.makeFeed(
                        name: feed.name, sourceType: "\##(typeName)", parameters: parameters(feed.parameters), baseURLOverride: baseURL)
                }

                /// The recorded pages, ordered by their `page` query value (none: page 1).
                static func recordedPages() throws -> [FetchedPage] {
                    func number(_ page: FetchedPage) -> Int {
                        URLComponents(url: page.url, resolvingAgainstBaseURL: false)?.queryItems?
                            .first { $0.name == "page" }?.value.flatMap { Int($0) } ?? 1
                    }
                    return try FeedSourceConformance.pages(fromFixtures: fixtures.path).sorted { number($0) < number($1) }
                }

                @Test("follows the FeedSource rules (FeedSourceConformance)")
                func conformance() throws {
                    let conformance = FeedSourceConformance(
                        \##(module).self, parameters: try Self.recordedFeed().parameters,
                        samplePages: try Self.recordedPages(),
                        registeredTypeNames: SourceRegistry.builtIn.descriptors.map(\.typeName))
                    #expect(conformance.violations() == [])
                }

                @Test("is registered: feeds.yaml can use `source: \##(typeName)`")
                func registered() {
                    #expect(SourceRegistry.builtIn.type(named: "\##(typeName)") == \##(module).self)
                }

                @Test("replaying the recording yields the items the source decodes from it, in page order")
                func replay() async throws {
                    let feed = try Self.recordedFeed()
                    let recorded = try FixtureStore.load(directory: Self.fixtures.path)
                    let expected = try Self.recordedPages().flatMap { try Self.source(feed).source.decodePage($0).items.map(\.id) }
                    let replay = try await ReplayServer.start(exchanges: recorded)
                    let client = CurlClient()
                    let result: FeedResult
                    do {
                        result = await FeedEngine(transport: client, pageConcurrency: 4)
                            .pull(try Self.source(feed, baseURL: replay.baseURL))
                    } catch {
                        client.shutdown()
                        try await replay.shutdown()
                        throw error
                    }
                    client.shutdown()
                    try await replay.shutdown()

                    #expect(result.error == nil, "feed failed: \(result.error.map(String.init(describing:)) ?? "")")
                    #expect(result.pages == recorded.count)
                    #expect(!expected.isEmpty)
                    #expect(result.items.map(\.id) == expected)
                    let first = try #require(result.items.first)
                    #expect(!first.title.isEmpty)
                    #expect(first.raw != nil)
                }

                @Test("a recorded item without one of its required members fails the page with its JSON path")
                func malformedItem() throws {
                    let source = try Self.source(try Self.recordedFeed()).source
                    let page = try #require(try Self.recordedPages().first)
                    let body = try JSONSerialization.jsonObject(with: page.response.body)
                    let container = Self.itemsPath.isEmpty ? nil : body as? [String: Any]
                    let items = try #require((container?[Self.itemsPath[0]] ?? body) as? [Any], "no item array in \(page.url)")
                    let item = try #require(items.first as? [String: Any], "no recorded item in \(page.url)")
                    /// The page holding only `item` without `key`.
                    func without(_ key: String) throws -> FetchedPage {
                        var broken = item
                        broken[key] = nil
                        var wrapped: Any = [broken]
                        if var object = container {
                            object[Self.itemsPath[0]] = [broken]
                            wrapped = object
                        }
                        return FetchedPage(
                            number: 1, url: page.url,
                            response: HTTPResponse(
                                status: 200, headers: page.response.headers,
                                body: try JSONSerialization.data(withJSONObject: wrapped), url: page.url))
                    }
                    // The first member (in name order) whose absence fails the item: a required one.
                    let required = item.keys.sorted().first { key in (try? source.decodePage(without(key))) == nil }
                    let key = try #require(required, "every member of the recorded item is optional: nothing to remove")
                    let error = #expect(throws: PageDecodeError.self) { try source.decodePage(try without(key)) }
                    #expect(error?.path.hasSuffix("[0]") == true, "\(String(describing: error))")
                    #expect(String(describing: error).contains(key), "\(String(describing: error))")
                }

                @Test("a feed without a required parameter is a configuration error")
                func missingParameter() throws {
                    let feed = try Self.recordedFeed()
                    let required = \##(module).descriptor.parameters.filter(\.required).map(\.name)
                    #expect(!required.isEmpty)
                    for name in required {
                        var keys = feed.parameters
                        keys[name] = nil
                        #expect(throws: ConfigError.self, "without '\(name)'") {
                            try SourceRegistry.builtIn.makeFeed(name: feed.name, sourceType: "\##(typeName)", parameters: Self.parameters(keys))
                        }
                    }
                }
            }

            """##
    }
}
