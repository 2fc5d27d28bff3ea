import FeedCore
import FeedStorage
import FeedaggTesting
import Foundation
import Synchronization
import Testing

@testable import FeedStore

#if PostgreSQL
    @testable import PostgresFeedStore
#endif

/// The page each engine computes over its whole store (the reference a maintained read must equal):
/// SQLite's pre-v5 read and PostgreSQL's pre-v2 window-function read.
protocol ComputedStream {
    func computedStream(feeds: [String], sources: [String]?, after cursor: StreamCursor?, limit: Int) throws
        -> StoredStreamPage
    func computedStream(feeds: [String], sources: [String]?, page: Int, perPage: Int) throws -> StoredStreamPage
}

extension FeedStore: ComputedStream {}
#if PostgreSQL
    extension PostgresFeedStore: ComputedStream {}
#endif

/// `store`'s reference read.
func oracle(of store: any StoreDriver) throws -> any ComputedStream {
    guard let computed = store as? any ComputedStream else {
        throw StoreError(kind: .cannotOpen, path: store.location, operation: "compute the stream", detail: "unknown engine")
    }
    return computed
}

/// An entry as the equivalence tests compare it: everything a page shows.
struct EntryShape: Equatable, CustomStringConvertible {
    var feed: String
    var feeds: [String]
    var source: String
    var item: FeedItem
    var firstSeen: Date?

    init(_ entry: StreamEntry) {
        (feed, feeds, source, item, firstSeen) = (entry.feed, entry.feeds, entry.source, entry.item, entry.firstSeen)
    }

    var description: String { "\(feed)/\(item.id)\(feeds.count > 1 ? " \(feeds)" : "")" }

    static func of(_ page: StoredStreamPage) -> [EntryShape] { page.entries.map(EntryShape.init) }
}

/// Reads the page after `cursor` (page 1 when `nil`) awaited (``StoreDriver/awaitStreamPage(feeds:sources:selection:after:limit:onCallersPool:)``,
/// what `feedagg serve` asks first; here on the store's executor: this process's tests hold the
/// cooperative pool's threads in synchronous calls) and, when the engine read it so, expects it to equal `page`,
/// the same page read the synchronous way. Returns whether it was read awaited: never on SQLite.
func expectAwaitedPage(
    _ store: any StoreDriver, feeds: [String], sources: [String]?, selection: StreamSelection = .everything,
    after cursor: StreamCursor?, limit: Int, equals page: StoredStreamPage, _ context: String
) async throws -> Bool {
    // What `feedagg serve` asks before it awaits a page at all.
    #expect(store.awaitsStreamPages == !(store is FeedStore), "\(context): awaits pages on PostgreSQL only")
    guard
        let awaited = try await store.awaitStreamPage(
            feeds: feeds, sources: sources, selection: selection, after: cursor, limit: limit, onCallersPool: false)
    else { return false }
    #expect(!(store is FeedStore), "\(context): SQLite's reads block, so none is awaited")
    #expect(EntryShape.of(awaited) == EntryShape.of(page), "\(context): awaited")
    #expect(awaited.entries.map(\.tags) == page.entries.map(\.tags), "\(context): awaited, tags")
    #expect(awaited.totalItems == page.totalItems && awaited.totalPages == page.totalPages, "\(context): awaited, totals")
    #expect(awaited.nextCursor == page.nextCursor, "\(context): awaited, next cursor")
    #expect(awaited.page == (cursor == nil ? 1 : nil), "\(context): awaited, page number")
    return true
}

@Suite("The maintained stream order equals the computed stream, on both engines")
struct StreamOrderEquivalenceTests {
    /// A store of `engine` holding the random store of `seed`.
    static func randomStore(_ engine: StoreEngine, seed: UInt64) async throws -> OpenedStore {
        let clock = ManualClock()
        let opened = try await engine.open(clock: clock)
        try RandomStreamStore.fill(opened.store, seed: seed, advance: clock.advance(by:))
        return opened
    }

    /// Walks every listing of the random store of `seed` on `engine`, by cursor and by page number,
    /// and expects each read to equal the computed one.
    static func checkEquivalence(_ engine: StoreEngine, seed: Int) async throws {
        let opened = try await randomStore(engine, seed: UInt64(seed))
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        for listing in RandomStreamStore.listings {
            let (feeds, sources) = listing
            let context = "\(engine) seed \(seed), feeds \(feeds), sources \(sources ?? [])"
            let reference = try oracle(of: store)
            let everything = try reference.computedStream(feeds: feeds, sources: sources, page: 1, perPage: 10_000)
            // Cursor by cursor, at several page sizes.
            // (PostgreSQL reads a page of every feed in one prepared statement of 32, 56, 64, 128
            // or 256 rows: these limits use each.)
            var awaited = 0
            for limit in [1, 3, 7, 50, 58, 120, 200] {
                var cursor: StreamCursor?
                var steps = 0
                var walked: [EntryShape] = []
                repeat {
                    let maintained = try store.stream(feeds: feeds, sources: sources, after: cursor, limit: limit)
                    // What `feedagg serve` reads: page 1 numbered, then pages after a cursor.
                    let synchronous =
                        cursor == nil ? try store.stream(feeds: feeds, sources: sources, page: 1, perPage: limit) : maintained
                    if try await expectAwaitedPage(
                        store, feeds: feeds, sources: sources, after: cursor, limit: limit, equals: synchronous,
                        "\(context), limit \(limit), step \(steps)")
                    {
                        awaited += 1
                    }
                    let computed = try reference.computedStream(feeds: feeds, sources: sources, after: cursor, limit: limit)
                    #expect(EntryShape.of(maintained) == EntryShape.of(computed), "\(context), limit \(limit), step \(steps)")
                    #expect(maintained.entries.allSatisfy { $0.item.raw == nil }, "\(context): a page reads no item's JSON")
                    #expect(maintained.totalItems == computed.totalItems, "\(context)")
                    #expect(maintained.totalPages == computed.totalPages, "\(context)")
                    #expect(maintained.nextCursor == computed.nextCursor, "\(context), limit \(limit), step \(steps)")
                    walked += EntryShape.of(maintained)
                    cursor = try maintained.nextCursor.map(StreamCursor.init)
                    steps += 1
                } while cursor != nil && steps < 1000
                #expect(walked == EntryShape.of(everything), "\(context), limit \(limit): the walk covers the stream once")
            }
            #if PostgreSQL
                // Most of those steps are one statement each; the rest (the last page, a page whose
                // slack went to hidden rows) took the general read: both are compared above.
                if let postgres = store as? PostgresFeedStore {
                    #expect(postgres.oneStatementPages.load(ordering: .relaxed) > 0, "\(context): no page was read in one statement")
                    #expect(awaited > 0, "\(context): no page was read awaited")
                }
            #endif
            // Page by page, including the last page and one past it (read from the end).
            for perPage in [1, 4, 9] {
                let pages = max(1, (everything.totalItems + perPage - 1) / perPage) + 1
                for number in 1...pages {
                    let maintained = try store.stream(feeds: feeds, sources: sources, page: number, perPage: perPage)
                    let computed = try reference.computedStream(feeds: feeds, sources: sources, page: number, perPage: perPage)
                    #expect(EntryShape.of(maintained) == EntryShape.of(computed), "\(context), page \(number)/\(perPage)")
                    #expect(maintained.totalItems == computed.totalItems, "\(context)")
                    #expect(maintained.totalPages == computed.totalPages, "\(context)")
                    #expect(maintained.page == computed.page)
                    #expect(maintained.nextCursor == computed.nextCursor, "\(context), page \(number)/\(perPage)")
                }
            }
        }
    }

    @Test("SQLite, random stores: every page and every cursor step gives the computed stream's items, order, totals and cursors",
        arguments: 1...24)
    func sqlite(seed: Int) async throws {
        try await Self.checkEquivalence(.sqlite, seed: seed)
    }

    @Test("PostgreSQL, random stores: every page and every cursor step gives the computed stream's items, order, totals and cursors",
        arguments: 1...5)
    func postgres(seed: Int) async throws {
        try await Self.checkEquivalence(.postgres, seed: seed)
    }

    @Test("the same commits give the same pages and cursor tokens on both engines", arguments: [11])
    func acrossEngines(seed: Int) async throws {
        let sqlite = try await Self.randomStore(.sqlite, seed: UInt64(seed))
        let postgres = try await Self.randomStore(.postgres, seed: UInt64(seed))
        defer {
            try? sqlite.store.close()
            try? postgres.store.close()
            sqlite.cleanup()
            postgres.cleanup()
        }
        for listing in RandomStreamStore.listings {
            for limit in [2, 50] {
                var cursor: StreamCursor?
                var steps = 0
                repeat {
                    let a = try sqlite.store.stream(feeds: listing.feeds, sources: listing.sources, after: cursor, limit: limit)
                    let b = try postgres.store.stream(feeds: listing.feeds, sources: listing.sources, after: cursor, limit: limit)
                    #expect(EntryShape.of(a) == EntryShape.of(b), "seed \(seed), \(listing.feeds), limit \(limit), step \(steps)")
                    #expect(a.totalItems == b.totalItems && a.nextCursor == b.nextCursor, "seed \(seed), step \(steps)")
                    cursor = try a.nextCursor.map(StreamCursor.init)
                    steps += 1
                } while cursor != nil && steps < 1000
            }
        }
    }
}
