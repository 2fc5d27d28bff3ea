public import Foundation

/// A response remembered from an earlier pull, for conditional requests.
public struct CachedResponse: Sendable {
    /// The URL it answered (secrets redacted: the cache key never holds a credential).
    public var key: String
    /// `ETag` of the response, if any.
    public var etag: String?
    /// `Last-Modified` of the response, if any.
    public var lastModified: String?
    /// Its headers (for pagination: `Link`).
    public var headers: HTTPHeaders
    /// Its body (empty when the store keeps the decoded page instead, see ``storedPage``).
    public var body: Data
    /// The page as decoded when it was stored, rebuilt from stored items, for a `304`; `nil` when
    /// the body is kept instead. It returns `nil` when the page cannot be rebuilt (items pruned):
    /// the engine then asks again without validators.
    public var storedPage: (@Sendable () -> DecodedPage?)?

    /// Creates a cached response.
    public init(
        key: String, etag: String?, lastModified: String?, headers: HTTPHeaders, body: Data,
        storedPage: (@Sendable () -> DecodedPage?)? = nil
    ) {
        self.key = key
        self.etag = etag
        self.lastModified = lastModified
        self.headers = headers
        self.body = body
        self.storedPage = storedPage
    }

    /// Whether it carries a validator worth sending.
    public var isRevalidatable: Bool { etag != nil || lastModified != nil }
}

/// What a store knows about a feed before pulling it, so the pull can be incremental.
///
/// Only given for a feed whose last pull succeeded: a failed pull may have left a gap between the
/// newest items it stored and the older ones, which only a full walk closes.
public struct IncrementalBaseline: Sendable {
    /// The content digest (``FeedItem/contentDigest``) of every stored item, by item id.
    public var digests: [String: Int64]
    /// The newest `updated` date among the stored items, for APIs with a `since` filter.
    public var newestUpdate: Date?
    /// Pages of the last complete walk, if any.
    public var pageCount: Int?

    /// Creates a baseline.
    public init(digests: [String: Int64], newestUpdate: Date?, pageCount: Int?) {
        self.digests = digests
        self.newestUpdate = newestUpdate
        self.pageCount = pageCount
    }

    /// Whether `item` is stored with exactly this content.
    public func isStoredUnchanged(_ item: FeedItem) -> Bool {
        digests[item.id] == item.contentDigest
    }
}

/// What the engine may remember between pulls; the store implements it.
public protocol PullMemory: Sendable {
    /// The key remembering the response to `url`: the URL with secrets redacted (never a credential).
    func key(for url: URL) -> String
    /// The last successful response for `key` (see ``key(for:)``), if remembered.
    func cachedResponse(for key: String) -> CachedResponse?
    /// What is stored of `feed`, when its pull may be incremental; `nil` to walk in full.
    func baseline(for feed: String) -> IncrementalBaseline?
    /// How many pages `feed` had when it was last walked in full, even if a later pull failed:
    /// the engine may request that many pages at once before page 1 answers.
    func knownPageCount(for feed: String) -> Int?
}

extension PullMemory {
    /// `url` with secrets redacted.
    public func key(for url: URL) -> String { Redaction.redact(url) }

    /// No baseline: every pull walks in full (conditional requests still apply).
    public func baseline(for feed: String) -> IncrementalBaseline? { nil }

    /// No remembered page count: no speculative requests.
    public func knownPageCount(for feed: String) -> Int? { nil }
}
