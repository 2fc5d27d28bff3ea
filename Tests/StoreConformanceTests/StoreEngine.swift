import FeedCore
import FeedStorage
import FeedStore
import FeedaggTesting
import Foundation
import Synchronization
import Testing

#if PostgreSQL
    import PostgresFeedStore
#endif

/// The engines every conformance test runs against.
enum StoreEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A store of one engine, fresh for one test, and what removes it.
struct OpenedStore {
    let store: any StoreDriver
    /// Opens another connection to the same store (a second process would).
    let reopen: @Sendable () throws -> any StoreDriver
    let cleanup: @Sendable () -> Void
    /// The PostgreSQL URL or the SQLite path.
    let location: String
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var read: @Sendable () -> Date { { [self] in self.now } }
}

extension StoreEngine {
    /// A new, empty store: a SQLite file in a temporary folder, or a fresh database in the shared
    /// test cluster.
    func open(clock: ManualClock = ManualClock()) async throws -> OpenedStore {
        switch self {
        case .sqlite:
            let folder = try TemporaryFolder("feedagg-conformance")
            let path = folder.path("store.sqlite")
            let now = clock.read
            return OpenedStore(
                store: try FeedStore.open(path: path, now: now), reopen: { try FeedStore.open(path: path, now: now) },
                cleanup: { folder.remove() }, location: path)
        case .postgres:
            #if PostgreSQL
                let cluster = try await PostgresCluster.shared()
                let database = try await cluster.createDatabase("conformance")
                let url = try PostgresURL(database.url)
                let now = clock.read
                return OpenedStore(
                    store: try PostgresFeedStore.open(url: url, now: now),
                    reopen: { try PostgresFeedStore.open(url: url, now: now) }, cleanup: {}, location: database.url)
            #else
                throw StoreError(
                    kind: .cannotOpen, path: "postgres", operation: "open the store",
                    detail: "built without the PostgreSQL trait (swift build --disable-default-traits)")
            #endif
        }
    }
}

extension StoreEngine {
    /// A location no store has opened yet (so nothing is migrated there): what opens it, and what
    /// removes it.
    func unopened() async throws -> (open: @Sendable () throws -> any StoreDriver, cleanup: @Sendable () -> Void) {
        let now = ManualClock().read
        switch self {
        case .sqlite:
            let folder = try TemporaryFolder("feedagg-conformance-fresh")
            let path = folder.path("store.sqlite")
            return ({ try FeedStore.open(path: path, now: now) }, { folder.remove() })
        case .postgres:
            #if PostgreSQL
                let cluster = try await PostgresCluster.shared()
                let database = try await cluster.createDatabase("fresh")
                let url = try PostgresURL(database.url)
                return ({ try PostgresFeedStore.open(url: url, now: now) }, {})
            #else
                throw StoreError(
                    kind: .cannotOpen, path: "postgres", operation: "open the store",
                    detail: "built without the PostgreSQL trait (swift build --disable-default-traits)")
            #endif
        }
    }
}

/// Items with a day-granular date (`day` days after 2023-11-14), an optional URL and raw JSON.
func item(_ id: String, url: String? = nil, day: Int? = nil, title: String? = nil) -> FeedItem {
    FeedItem(
        id: id, title: title ?? "title \(id)", url: url,
        updated: day.map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0) * 86_400) },
        raw: Data(#"{"id":"\#(id)"}"#.utf8))
}

/// A successful, complete pull of `items`.
func pull(_ feed: String, _ items: [FeedItem], source: String = "test.items", cache: [HTTPCacheEntry] = []) -> FeedPull {
    FeedPull(
        feed: feed, source: source, items: items, complete: true, stats: PullStats(pages: 1, requests: 1),
        cacheEntries: cache)
}

/// Every entry of the stream, walked with cursors `limit` at a time, with the cursor after each page.
func walk(_ store: any StoreDriver, feeds: [String], limit: Int) throws -> (entries: [StreamEntry], cursors: [String]) {
    var entries: [StreamEntry] = []
    var cursors: [String] = []
    var cursor: StreamCursor?
    repeat {
        let page = try store.stream(feeds: feeds, sources: nil, after: cursor, limit: limit)
        entries += page.entries
        if let next = page.nextCursor { cursors.append(next) }
        cursor = try page.nextCursor.map(StreamCursor.init)
    } while cursor != nil
    return (entries, cursors)
}

/// `feed/id` of each entry, with the carrying feeds when several.
func shapes(_ entries: [StreamEntry]) -> [String] {
    entries.map { "\($0.feed)/\($0.item.id)" + ($0.feeds.count > 1 ? " \($0.feeds.joined(separator: ","))" : "") }
}
