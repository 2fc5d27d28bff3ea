/// One HTTP exchange as the engine saw it, for `--verbose` logs (never carries credentials).
public struct RequestRecord: Sendable {
    /// The feed that made the request.
    public var feed: String
    /// The HTTP method of the request (``HTTPRequest/method``).
    public var method: String
    /// The URL, secrets redacted.
    public var url: String
    /// The status, or `nil` when no response arrived.
    public var status: Int?
    /// Body bytes received.
    public var bytes: Int
    /// Wall time of the exchange.
    public var duration: Duration
    /// Whether the response came from a local cache.
    public var fromCache: Bool
    /// The transport failure, if any.
    public var failure: String?
    /// The redirects followed before the response, as `301 → <url>` (secrets redacted).
    public var redirects: [String] = []
    /// Whether the request was cancelled because its walk no longer needed it (a fanned-out page
    /// past the feed's end or failure): logged, but not counted as a request of the pull.
    public var cancelled: Bool = false
    /// How the request is named when it is no `METHOD <url>` (an exec plugin's run:
    /// ``FeedSource/requestDescription(for:)``), else `nil`.
    public var shown: String? = nil

    /// `shown`, else `METHOD <url>`.
    public var label: String { shown ?? "\(method) \(url)" }
}
