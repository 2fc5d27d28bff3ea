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
    /// Its body.
    public var body: Data

    /// Creates a cached response.
    public init(key: String, etag: String?, lastModified: String?, headers: HTTPHeaders, body: Data) {
        self.key = key
        self.etag = etag
        self.lastModified = lastModified
        self.headers = headers
        self.body = body
    }

    /// Whether it carries a validator worth sending.
    public var isRevalidatable: Bool { etag != nil || lastModified != nil }
}

/// What the engine may remember between pulls; the store implements it.
public protocol PullMemory: Sendable {
    /// The last successful response for `key` (a redacted URL), if remembered.
    func cachedResponse(for key: String) -> CachedResponse?
}
