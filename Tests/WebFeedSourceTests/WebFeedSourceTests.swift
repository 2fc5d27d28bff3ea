import FeedCore
import FeedaggKit
import FeedaggTesting
import Foundation
import Testing
import WebFeedSource

/// The `feed` source type: contract, parameters, items.
@Suite("WebFeedSource (source: feed)")
struct WebFeedSourceTests {
    static func source(_ keys: [String: String], baseURL: String = "https://feed-url.invalid") throws -> WebFeedSource {
        let parameters = FeedSourceConformance.feedParameters(keys, feedName: "news", sourceType: "feed")
        let context = FeedContext(name: "news", baseURL: URL(string: baseURL)!, pageSize: 1)
        return try WebFeedSource(feed: context, parameters: parameters)
    }

    @Test("follows the FeedSource rules (FeedSourceConformance) over every fixture")
    func conformance() throws {
        let pages = try FeedFixtures.documents.enumerated().map { index, fixture in
            FetchedPage.sample(
                try FeedFixtures.data(fixture.file), url: URL(string: fixture.url)!, number: index + 1, contentType: nil)
        }
        let conformance = FeedSourceConformance(
            WebFeedSource.self, parameters: ["url": "https://feed-url.invalid/feed.xml"], samplePages: pages,
            registeredTypeNames: SourceRegistry.builtIn.descriptors.map(\.typeName))
        #expect(conformance.violations() == [])
    }

    @Test("url: absolute as written; with base_url (or --replay) its path and query move onto base_url")
    func urls() throws {
        #expect(try Self.source(["url": "http://blog.test/feed?x=1"]).firstPageURL.absoluteString == "http://blog.test/feed?x=1")
        let rebased = try Self.source(["url": "https://blog.test/a/feed.xml?x=1"], baseURL: "http://127.0.0.1:8080/replay")
        #expect(rebased.firstPageURL.absoluteString == "http://127.0.0.1:8080/replay/a/feed.xml?x=1")
        let relative = try Self.source(["url": "releases.atom"], baseURL: "https://github.com/swiftlang/swift")
        #expect(relative.firstPageURL.absoluteString == "https://github.com/swiftlang/swift/releases.atom")
        for bad in ["ftp://x.test/feed", "feed.xml", "file:///etc/passwd"] {
            #expect(throws: ConfigError.self) { try Self.source(["url": bad]) }
        }
        #expect(throws: ConfigError.self) { try Self.source(["url": "https://x.test/", "max_bytes": "10"]) }
    }

    @Test("decodePage: items named '<feed>:<id>', the next link as the cursor, errors with the line")
    func decode() throws {
        let source = try Self.source(["url": "https://example.org/feed"])
        let atom = #"<feed xmlns="http://www.w3.org/2005/Atom"><link rel="next" href="/feed?page=2"/><entry><id>a</id><title>A</title><category term="x"/><category term="y"/></entry><entry><id>a</id><title>dup</title></entry></feed>"#
        let decoded = try source.decodePage(.sample(atom, url: URL(string: "https://example.org/feed")!, contentType: nil))
        #expect(decoded.items.map(\.id) == ["news:a"])
        #expect(decoded.nextCursor == "https://example.org/feed?page=2")
        let raw = try #require(decoded.items.first?.raw)
        #expect(String(decoding: raw, as: UTF8.self) == #"{"id":"a","title":"A","categories":["x","y"]}"#)
        let broken = "<rss version=\"2.0\">\n<channel>\n<item><title>x</titel></item></channel></rss>"
        #expect(throws: PageDecodeError.self) {
            try source.decodePage(.sample(broken, url: URL(string: "https://example.org/feed")!, contentType: nil))
        }
        do {
            _ = try source.decodePage(.sample(broken, url: URL(string: "https://example.org/feed")!, contentType: nil))
        } catch let error as PageDecodeError {
            #expect(error.path == "line 3")
            #expect(error.message.hasPrefix("malformed XML: Opening and ending tag mismatch"), "\(error)")
        }
    }

    @Test("is registered: feeds.yaml can use `source: feed`")
    func registered() {
        #expect(SourceRegistry.builtIn.type(named: "feed") == WebFeedSource.self)
    }
}
