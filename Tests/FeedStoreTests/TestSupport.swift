import FeedCore
import Foundation
import Synchronization
import Testing

@testable import FeedStore

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = Mutex(start) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// The closure a store reads.
    var read: @Sendable () -> Date { { [self] in self.now } }
}

/// Items with a day-granular date (`day` days after 2023-11-14), an optional URL and raw JSON.
func item(_ id: String, url: String? = nil, day: Int? = nil, title: String? = nil) -> FeedItem {
    FeedItem(
        id: id, title: title ?? "title \(id)", url: url,
        updated: day.map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0) * 86_400) },
        raw: Data(#"{"id":"\#(id)"}"#.utf8))
}

/// A successful, complete pull of `items`.
func pull(_ feed: String, _ source: String, _ items: [FeedItem], cache: [HTTPCacheEntry] = []) -> FeedPull {
    FeedPull(
        feed: feed, source: source, items: items, complete: true, stats: PullStats(pages: 1, requests: 1),
        cacheEntries: cache)
}

/// Every entry of the stream, walked with cursors `limit` at a time.
func allEntries(_ store: FeedStore, feeds: [String], sources: [String]? = nil, limit: Int = 1000) throws -> [StreamEntry] {
    var entries: [StreamEntry] = []
    var cursor: StreamCursor?
    repeat {
        let page = try store.stream(feeds: feeds, sources: sources, after: cursor, limit: limit)
        entries += page.entries
        cursor = try page.nextCursor.map(StreamCursor.init)
    } while cursor != nil
    return entries
}

/// `items` as `store` holds them for `feed`, original JSON included: read back as a page answered
/// `304` is rebuilt (nothing shows an item's JSON, so only the store's own reads return it).
func storedItems(_ store: FeedStore, feed: String, _ items: [FeedItem]) throws -> [FeedItem] {
    try #require(try store.rebuildPage(StoredPageSummary(AcceptedPage(number: 1, items: items)), feed: feed)).items
}

/// Comparable shape of an entry: what a page shows (a stored page carries no item's original JSON,
/// `StoredStreamPage`, so an entry merged in memory is compared without it).
struct EntryShape: Equatable, CustomStringConvertible {
    var id: String
    var feed: String
    var feeds: [String]
    var source: String
    var item: FeedItem

    init(_ entry: StreamEntry) {
        id = entry.item.id
        feed = entry.feed
        feeds = entry.feeds
        source = entry.source
        item = entry.item
        item.raw = nil
    }

    var description: String { "\(feed)/\(id)\(feeds.count > 1 ? " \(feeds)" : "")" }
}
