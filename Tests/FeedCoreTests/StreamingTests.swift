import CurlHTTP
import FeedCore
import Foundation
import LoopbackServer
import Synchronization
import Testing

/// A sink that records, for every page it gets, how many requests the server had seen by then.
private final class RecordingSink: PageSink, Sendable {
    let list: FlakyList
    let log = Mutex<[(page: Int, requestsSeen: Int, items: [String])]>([])

    init(list: FlakyList) { self.list = list }

    func accept(_ page: AcceptedPage, of feed: Feed) async throws {
        let seen = list.totalRequests
        log.withLock { $0.append((page.number, seen, page.items.map(\.id))) }
    }
}

/// A sink that keeps every item it gets and says whether it needs their raw JSON.
private final class ItemSink: PageSink, Sendable {
    let keepsRawJSON: Bool
    let items = Mutex<[FeedItem]>([])

    init(keepsRawJSON: Bool) { self.keepsRawJSON = keepsRawJSON }

    func accept(_ page: AcceptedPage, of feed: Feed) async throws {
        items.withLock { $0 += page.items }
    }
}

@Suite("Streaming: pages reach the sink in order while later ones are still being fetched")
struct StreamingTests {
    @Test("200 pages, page_concurrency 4: each page is handed over in order with at most 2 × 4 pages fetched ahead")
    func boundedLookahead() async throws {
        let list = FlakyList(pages: 200) { _, _ in nil }
        let (server, url) = try await list.serve()
        let feed = Feed(
            source: RecordedListSource(firstPageURL: url), context: FeedContext(name: "long", baseURL: url, pageSize: 3))
        let client = CurlClient()
        defer { client.shutdown() }
        let sink = RecordingSink(list: list)
        let result = await FeedEngine(transport: client, pageConcurrency: 4).pull(feed, sink: sink)
        try await server.shutdown()

        #expect(result.error == nil)
        #expect(result.items.isEmpty, "with a sink the result holds no items")
        #expect(result.itemCount == 600)
        let log = sink.log.withLock { $0 }
        #expect(log.map(\.page) == Array(1...200))
        #expect(log.flatMap(\.items) == (1...200).flatMap { page in (1...3).map { "test.list:\(page * 100 + $0)" } })
        // When page n is handed over, no more than n + 8 pages (the look-ahead window) were asked for.
        for entry in log {
            #expect(entry.requestsSeen <= entry.page + 8, "page \(entry.page): \(entry.requestsSeen) requests seen")
        }
        #expect(list.totalRequests == 200)
    }

    @Test("A sink that keeps no raw JSON gets the items without it, each with the digest it had with it")
    func rawDroppedAtDecode() async throws {
        let list = FlakyList(pages: 6) { _, _ in nil }
        let (server, url) = try await list.serve()
        var source = RecordedListSource(firstPageURL: url)
        source.rawJSON = true
        let feed = Feed(source: source, context: FeedContext(name: "raw", baseURL: url, pageSize: 3))
        let client = CurlClient()
        defer { client.shutdown() }
        let keeping = ItemSink(keepsRawJSON: true)
        let dropping = ItemSink(keepsRawJSON: false)
        let engine = FeedEngine(transport: client, pageConcurrency: 4)
        #expect(await engine.pull(feed, sink: keeping).error == nil)
        #expect(await engine.pull(feed, sink: dropping).error == nil)
        try await server.shutdown()

        let kept = keeping.items.withLock { $0 }
        let dropped = dropping.items.withLock { $0 }
        #expect(kept.count == 18)
        #expect(dropped.map(\.id) == kept.map(\.id))
        #expect(kept.allSatisfy { $0.raw != nil })
        #expect(dropped.allSatisfy { $0.raw == nil })
        // The digest covers the raw JSON: the same as the kept item's, not that of an item without raw.
        for (with, without) in zip(kept, dropped) {
            #expect(without.contentDigest == with.contentDigest)
            var bare = with
            bare.raw = nil
            #expect(without.contentDigest != bare.contentDigest)
        }
    }
}
