public import Foundation

/// Why a feed's pull failed, with the context a user needs: feed, URL, page, cause.
public struct FeedError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, one case per layer that can fail (HTTP, transport, decoding, paging, store).
    public enum Reason: Sendable {
        /// The server answered with a non-success status (and maybe a message from the body).
        case httpStatus(Int, message: String?)
        /// No HTTP response: connection, timeout, size cap…
        case transport(TransportError)
        /// The body was not the shape the source expects.
        case decode(PageDecodeError)
        /// A next link pointed at a page already fetched.
        case paginationCycle
        /// A page contradicts what earlier pages said (an empty page before the end, a changed page count).
        case paginationInconsistent(String)
        /// The feed's configuration could not be turned into a source.
        case configuration(String)
        /// A rate limit stopped the feed: it lasts longer than the feed may still wait, or it was
        /// met again after waiting for it.
        case rateLimited(RateLimitStop)
        /// The page could not be saved (the store's message).
        case notSaved(String)
    }

    /// The feed's name.
    public var feed: String
    /// The URL that failed (secrets redacted).
    public var url: String
    /// The failed request in its source's own terms (an exec plugin's command), shown instead of
    /// `GET <url>`; `nil` for `GET <url>` (``FeedSource/requestDescription(for:)``).
    public var request: String?
    /// The 1-based page of the walk, when the failure belongs to one.
    public var page: Int?
    /// What went wrong; ``cause`` renders it for a user.
    public var reason: Reason
    /// How many times the request was tried (more than 1 when retries did not help).
    public var attempts: Int = 1

    /// Creates a feed error; `url` is redacted here.
    public init(feed: String, url: URL?, page: Int?, reason: Reason) {
        self.feed = feed
        self.url = url.map { Redaction.shown($0) } ?? ""
        self.page = page
        self.reason = reason
    }

    /// The cause alone, e.g. `HTTP 404 Not Found: Not Found`.
    public var cause: String {
        switch reason {
        case .httpStatus(let status, let message):
            let phrase = HTTPStatus.phrase(status)
            var text = "HTTP \(status)\(phrase.isEmpty ? "" : " \(phrase)")"
            if let message, !message.isEmpty { text += ": \(message)" }
            if status == 403 { text += " (not a rate limit)" }
            return text
        case .rateLimited(let stop):
            return stop.message
        case .transport(let error):
            return "\(error.kind.rawValue): \(error.detail)"
        case .decode(let error):
            return "unexpected response: \(error.message) at \(error.path)"
        case .paginationCycle:
            return "pagination cycle: the next link points at a page already fetched"
        case .paginationInconsistent(let detail):
            return "inconsistent pagination: \(detail)"
        case .configuration(let message):
            return message
        case .notSaved(let message):
            return "not saved: \(message)"
        }
    }

    /// One line: `feed 'x': GET <url> (page N): <cause>`.
    public var description: String {
        var text = "feed '\(feed)'"
        if let request { text += ": \(request)" } else if !url.isEmpty { text += ": GET \(url)" }
        if let page { text += " (page \(page))" }
        return text + ": " + Redaction.shownText(cause) + (attempts > 1 ? " (after \(attempts) tries)" : "")
    }
}
