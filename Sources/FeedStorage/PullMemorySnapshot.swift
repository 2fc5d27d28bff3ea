public import FeedCore
import Synchronization

/// What a pull of several feeds will ask the store first, read for all of them at once: each
/// feed's stored state (its incremental baseline) and its HTTP cache entries (its conditional
/// requests). A store whose every read is a network round trip (PostgreSQL) answers a batch of 64
/// feeds with two statements instead of two per feed; ``StorePullMemory`` answers from it.
///
/// Each entry answers the first read of its key only: a later read (a feed walked again in the
/// same pull, after it committed) goes to the store, so nothing the pull wrote is answered from
/// before it. A key it does not hold (a URL cached under another feed, a page never fetched) is
/// read from the store as before.
public final class PullMemorySnapshot: Sendable {
    private struct Contents: Sendable {
        var states: [String: StoredFeedState?]
        var cache: [String: HTTPCacheEntry]
    }

    private let contents: Mutex<Contents>

    /// Creates a snapshot of `feeds` (every feed read; `nil` for one the store does not hold) and
    /// `cache`, their cache entries by key.
    public init(states: [String: StoredFeedState?], cache: [String: HTTPCacheEntry]) {
        contents = Mutex(Contents(states: states, cache: cache))
    }

    /// The stored state of `feed`: `.some(nil)` when the store held no row for it, `nil` when the
    /// snapshot does not cover it (or answered it already).
    public func takeState(of feed: String) -> StoredFeedState?? {
        contents.withLock { $0.states.removeValue(forKey: feed) }
    }

    /// The cache entry of `key`, when the snapshot holds one not answered yet.
    public func takeCachedResponse(for key: String) -> HTTPCacheEntry? {
        contents.withLock { $0.cache.removeValue(forKey: key) }
    }
}

/// The columns of a feed's stored row a pull's start reads (``StoreDriver/baseline(for:source:)``).
public struct StoredFeedState: Sendable, Equatable {
    /// The source type the feed was last pulled as.
    public var source: String
    /// Pages of the last complete walk.
    public var pageCount: Int?
    /// When the last pull succeeded (seconds since 1970).
    public var lastSuccessAt: Double?
    /// When the last pull was attempted, successful or not (seconds since 1970).
    public var lastAttemptAt: Double?
    /// The last pull's error, if it failed.
    public var lastError: String?

    /// Creates a state from a stored row.
    public init(source: String, pageCount: Int?, lastSuccessAt: Double?, lastAttemptAt: Double?, lastError: String?) {
        self.source = source
        self.pageCount = pageCount
        self.lastSuccessAt = lastSuccessAt
        self.lastAttemptAt = lastAttemptAt
        self.lastError = lastError
    }

    /// The incremental baseline for a pull as `source`: only when the feed's last pull was of the
    /// same source type and succeeded (its last attempt was its last success, with no error).
    public func baseline(source: String) -> IncrementalBaseline? {
        guard self.source == source, let lastSuccessAt, lastAttemptAt == lastSuccessAt, lastError == nil else { return nil }
        return IncrementalBaseline(pageCount: pageCount)
    }
}
