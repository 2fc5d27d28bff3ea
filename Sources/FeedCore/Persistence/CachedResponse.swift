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
