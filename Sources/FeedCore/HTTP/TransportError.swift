public import Foundation

/// A transport failure: the request did not produce an HTTP response.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, coarsely, so callers can decide whether to retry.
    public enum Kind: String, Sendable {
        /// The connection could not be made (refused, unreachable, DNS).
        case connectionFailed = "connection failed"
        /// A connect, first-byte or total timeout expired.
        case timedOut = "timed out"
        /// The body exceeded the size the client accepts.
        case responseTooLarge = "response too large"
        /// The redirect chain was longer than the client follows.
        case tooManyRedirects = "too many redirects"
        /// The TLS handshake or certificate check failed.
        case tls = "TLS error"
        /// The server answered something that is not valid HTTP.
        case badResponse = "bad response"
        /// The pull was cancelled while the request ran.
        case cancelled = "cancelled"
        /// The request cannot be made at all, and trying again cannot help until someone changes
        /// something (an exec plugin that is missing or not executable): never retried.
        case cannotRun = "cannot run"
        /// Any other transfer failure.
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
