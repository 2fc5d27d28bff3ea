public import Foundation

/// Why a feed's pull failed, with the context a user needs: feed, URL, page, cause.
public struct FeedError: Error, Sendable, CustomStringConvertible {
    /// The cause.
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
        /// The host's rate limit lasts until `until`, longer than the engine may wait (`maxWait`).
        case rateLimited(host: String, until: Date, maxWait: Duration)
        /// The page could not be saved (the store's message).
        case notSaved(String)
    }

    /// The feed's name.
    public var feed: String
    /// The URL that failed (secrets redacted).
    public var url: String
    /// The 1-based page of the walk, when the failure belongs to one.
    public var page: Int?
    /// The cause.
    public var reason: Reason
    /// How many times the request was tried (more than 1 when retries did not help).
    public var attempts: Int = 1

    /// Creates a feed error; `url` is redacted here.
    public init(feed: String, url: URL?, page: Int?, reason: Reason) {
        self.feed = feed
        self.url = url.map { Redaction.redact($0) } ?? ""
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
        case .rateLimited(let host, let until, let maxWait):
            let wait = Int(maxWait.components.seconds)
            return "rate limited by \(host) until \(ISO8601.string(from: until)), longer than feedagg waits "
                + "(rate_limit_wait = \(wait) s): pull again after that time"
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
        if !url.isEmpty { text += ": GET \(url)" }
        if let page { text += " (page \(page))" }
        return text + ": " + cause + (attempts > 1 ? " (after \(attempts) tries)" : "")
    }
}

/// Reason phrases for the statuses APIs actually send.
public enum HTTPStatus {
    /// The standard reason phrase of `code`, or an empty string.
    public static func phrase(_ code: Int) -> String {
        switch code {
        case 200: return "OK"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 422: return "Unprocessable Entity"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }

    /// A short message from an error body: GitHub's `{"message": …}`, else the first line of text.
    public static func message(fromBody body: Data) -> String? {
        guard !body.isEmpty else { return nil }
        if let object = try? JSONSerialization.jsonObject(with: body.prefix(65_536)) as? [String: Any],
            let message = (object["message"] ?? object["error"]) as? String
        {
            return String(message.prefix(300))
        }
        let text = String(decoding: body.prefix(300), as: UTF8.self)
        if text.contains("<") { return nil }  // HTML error pages say nothing useful in one line
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.trimmingCharacters(in: .whitespaces).isEmpty ? nil : line
    }
}
