import Synchronization
import FeedCore
public import Foundation

/// One recorded HTTP exchange: the request, and the response the server gave.
///
/// On disk (one file per exchange, `Fixtures/<scenario>/NNN.json`):
/// ```json
/// {"request": {"method": "GET", "url": "https://api.github.com/orgs/x/repos?per_page=30",
///              "headers": [["Accept", "application/vnd.github+json"]]},
///  "response": {"status": 200, "headers": [["Link", "<…>; rel=\"next\""]],
///               "body": [ … JSON … ]}}
/// ```
/// `body` holds the JSON value when the body is JSON; otherwise `body_text` holds it as text.
/// Credentials are scrubbed when recording (see ``FixtureScrubber``).
public struct FixtureExchange: Sendable, Equatable {
    /// Request method.
    public var method: String
    /// Absolute request URL as recorded.
    public var url: String
    /// Request header fields (scrubbed).
    public var requestHeaders: [[String]]
    /// Response status.
    public var status: Int
    /// Response header fields (scrubbed).
    public var responseHeaders: [[String]]
    /// Response body bytes.
    public var body: Data

    /// Creates an exchange.
    public init(
        method: String = "GET", url: String, requestHeaders: [[String]] = [], status: Int,
        responseHeaders: [[String]], body: Data
    ) {
        self.method = method
        self.url = url
        self.requestHeaders = requestHeaders
        self.status = status
        self.responseHeaders = responseHeaders
        self.body = body
    }

    /// The `path?query` of the request, which replay matches on.
    public var target: String {
        guard let components = URLComponents(string: url) else { return url }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    /// `scheme://host[:port]` of the recorded request.
    public var origin: String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
        else { return "" }
        return components.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
