public import FeedCore
public import Foundation

/// Counters of one pull of one feed, recorded on the feed's row.
public struct PullStats: Sendable, Hashable {
    /// Pages fetched and decoded.
    public var pages: Int
    /// HTTP requests made (including ones answered from the cache).
    public var requests: Int

    /// Creates counters.
    public init(pages: Int = 0, requests: Int = 0) {
        self.pages = pages
        self.requests = requests
    }

    /// The counters of an engine result.
    public init(_ result: FeedResult) {
        self.init(pages: result.pages, requests: result.requests)
    }
}

/// Everything one feed's pull hands to ``FeedStore/commitPull(_:)``.
public struct FeedPull: Sendable {
    /// The feed's name (its key in the store).
    public var feed: String
    /// Its source type, e.g. `github.repos`.
    public var source: String
    /// The items fetched, in wire order (pages in order). On a failed pull: the items fetched before the failure.
    public var items: [FeedItem]
    /// Whether the pull read every page the API has (no `max_pages` stop, no failure). Items of the
    /// feed that a complete pull did not return are kept and marked missing, never deleted.
    public var complete: Bool
    /// Pages and requests.
    public var stats: PullStats
    /// Why the pull failed, if it did (one line for a user).
    public var error: String?
    /// HTTP responses to remember for conditional requests, committed with the items.
    public var cacheEntries: [HTTPCacheEntry]
    /// How many pages the API lists for the feed, when the pull walked them all (kept for
    /// speculative fetching); `nil` leaves the stored count as it was.
    public var pageCount: Int?
    /// How many items the pull returned (``items`` is empty when they were staged page by page).
    public var itemCount: Int
    /// The pull fetched only the newest pages on purpose (`pull --limit`). Its items are upserted and
    /// its attempt, error and counters recorded, but it is not a successful pull of the feed:
    /// `last_success_at` and the page count stay as they were, and the feed gets no incremental
    /// baseline until a pull that is not limited succeeds (the items it skipped may have changed, so
    /// the next pull walks every page instead of stopping at stored items, trusting a page-1 `304`
    /// or sending a `since` watermark).
    public var limited = false

    /// Creates a pull record.
    public init(
        feed: String, source: String, items: [FeedItem], complete: Bool, stats: PullStats, error: String? = nil,
        cacheEntries: [HTTPCacheEntry] = [], pageCount: Int? = nil
    ) {
        self.feed = feed
        self.source = source
        self.items = items
        self.complete = complete
        self.stats = stats
        self.error = error
        self.cacheEntries = cacheEntries
        self.pageCount = pageCount ?? (complete && error == nil ? stats.pages : nil)
        self.itemCount = items.count
    }

    /// The record of an engine result, with its cacheable responses as cache entries. Complete
    /// when the engine says so (``FeedResult/complete``); an unchanged feed (page 1 answered `304`)
    /// records the request and keeps its items, cache and page count as they were.
    public init(_ result: FeedResult) {
        // A resumed pull walked pages `resumedAtPage`… only; the page count covers the whole walk.
        let walked = (result.resumedAtPage.map { $0 - 1 } ?? 0) + result.pages
        self.init(
            feed: result.feed, source: result.source, items: result.items, complete: result.complete,
            stats: PullStats(result), error: result.error?.description,
            cacheEntries: result.cacheable.map(HTTPCacheEntry.init),
            pageCount: result.complete && result.succeeded ? walked : nil)
        itemCount = max(result.itemCount, result.items.count)
    }
}

/// What ``FeedStore/commitPull(_:)`` did to a feed's items.
public struct CommitSummary: Sendable, Hashable {
    /// Items stored for the first time.
    public var inserted: Int
    /// Items whose content changed, updated in place.
    public var updated: Int
    /// Items seen again unchanged (only `last_seen_at` moved).
    public var unchanged: Int
    /// Stored items a complete, successful pull no longer returned (kept, marked missing).
    public var missing: Int

    /// Creates a summary.
    public init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0, missing: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
        self.missing = missing
    }
}

/// One remembered HTTP response: validators for a conditional request and the body to serve on `304`.
public struct HTTPCacheEntry: Sendable, Hashable {
    /// The request URL with secrets already redacted by the caller (never a token).
    public var url: String
    /// The response status.
    public var status: Int
    /// The response header fields (responses carry no credentials).
    public var headers: HTTPHeaders
    /// The decoded body.
    public var body: Data
    /// The `ETag` validator.
    public var etag: String?
    /// The `Last-Modified` validator.
    public var lastModified: String?
    /// When the store committed it; `nil` on a new entry (the store's clock is used).
    public var storedAt: Date?
    /// The page as ids of stored items, kept instead of the body by pulls written page by page
    /// (``body`` is then empty).
    public var page: StoredPageSummary?
    /// The feed that owns the entry (set when read back from the store).
    public var feed: String?

    /// Creates an entry; `etag` and `lastModified` default to the matching header fields.
    public init(
        url: String, status: Int, headers: HTTPHeaders, body: Data, etag: String? = nil, lastModified: String? = nil,
        storedAt: Date? = nil
    ) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
        self.etag = etag ?? headers["ETag"]
        self.lastModified = lastModified ?? headers["Last-Modified"]
        self.storedAt = storedAt
    }
}

extension HTTPCacheEntry {
    /// The entry remembering an engine's cacheable response (status 200).
    public init(_ response: CachedResponse) {
        self.init(
            url: response.key, status: 200, headers: response.headers, body: response.body, etag: response.etag,
            lastModified: response.lastModified)
    }
}

/// The state of one stored feed, for `feedagg status`-like output.
public struct FeedSummary: Sendable, Hashable {
    /// Feed name.
    public var name: String
    /// Source type of the last pull.
    public var source: String
    /// Items stored (including ones the API no longer returns).
    public var itemCount: Int
    /// Stored items the last complete pull did not return.
    public var missingCount: Int
    /// When a pull was last attempted.
    public var lastAttemptAt: Date?
    /// When a pull last succeeded.
    public var lastSuccessAt: Date?
    /// Why the last pull failed; `nil` when it succeeded.
    public var lastError: String?
    /// Pages of the last pull.
    public var lastPages: Int?
    /// Requests of the last pull.
    public var lastRequests: Int?
    /// Items the last pull returned.
    public var lastItems: Int?
    /// Pages of the last successful pull.
    public var pageCount: Int?
    /// The page an interrupted pull continues from on the next `pull`, if one is saved.
    public var resumesAtPage: Int? = nil
    /// Items saved by an interrupted pull (staged pages), not visible until a pull of the feed
    /// completes; the next pull continues from them.
    public var stagedCount: Int = 0
    /// The absolute path of the configuration that last pulled the feed (its owner); `nil` when a
    /// feedagg older than schema v4 wrote it.
    public var config: String? = nil

    /// Creates a summary (engines do).
    public init(
        name: String, source: String, itemCount: Int, missingCount: Int, lastAttemptAt: Date? = nil,
        lastSuccessAt: Date? = nil, lastError: String? = nil, lastPages: Int? = nil, lastRequests: Int? = nil,
        lastItems: Int? = nil, pageCount: Int? = nil,
        resumesAtPage: Int? = nil, stagedCount: Int = 0, config: String? = nil
    ) {
        self.name = name
        self.source = source
        self.itemCount = itemCount
        self.missingCount = missingCount
        self.lastAttemptAt = lastAttemptAt
        self.lastSuccessAt = lastSuccessAt
        self.lastError = lastError
        self.lastPages = lastPages
        self.lastRequests = lastRequests
        self.lastItems = lastItems
        self.pageCount = pageCount
        self.resumesAtPage = resumesAtPage
        self.stagedCount = stagedCount
        self.config = config
    }
}
