public import Foundation

/// A transport failure: the request did not produce an HTTP response.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, coarsely, so callers can decide whether to retry.
    public enum Kind: String, Sendable {
        case connectionFailed = "connection failed"
        case timedOut = "timed out"
        case responseTooLarge = "response too large"
        case tooManyRedirects = "too many redirects"
        case tls = "TLS error"
        case badResponse = "bad response"
        case cancelled = "cancelled"
        /// The request cannot be made at all, and trying again cannot help until someone changes
        /// something (an exec plugin that is missing or not executable): never retried.
        case cannotRun = "cannot run"
        case other = "transfer failed"
    }

    /// The coarse kind of failure.
    public var kind: Kind
    /// The URL that failed (printed redacted).
    public var url: URL
    /// The underlying library's message.
    public var detail: String

    /// Creates a transport error.
    public init(kind: Kind, url: URL, detail: String) {
        self.kind = kind
        self.url = url
        self.detail = detail
    }

    /// What went wrong, in one line for the feed's error.
    public var description: String {
        "\(kind.rawValue): \(Redaction.shownText(detail)) (\(Redaction.shown(url)))"
    }
}
