import Foundation

/// Who a rate limit applies to: an origin (scheme, host, port) and the credential sent to it.
///
/// GitHub counts its primary limit per token, and per address for requests without one: feeds
/// with another token, or none, on the same host are not paused by one feed's limit. The
/// credential is kept only as a hash (seeded per process), never as the token itself.
package struct RateLimitKey: Hashable, Sendable, CustomStringConvertible {
    /// Scheme, host and port.
    package let origin: Origin
    /// A hash of the credential header values and secret query values sent; `nil` without any.
    let credential: Int?
    /// `host` or `host:port` as written in the URL, for messages.
    package let host: String

    /// The key of `request`: its origin, and the credentials it carries (the values of the
    /// `credentialFields` present in its headers, and its secret query parameters).
    package init(_ request: HTTPRequest, credentialFields: [String]) {
        let url = request.url
        origin = Origin(url)
        host = url.port.map { "\(url.host ?? ""):\($0)" } ?? (url.host ?? "")
        var secrets: [String] = []
        for name in credentialFields.map({ $0.lowercased() }).sorted() {
            if let value = request.headers[name] { secrets.append(name + ":" + value) }
        }
        for item in URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []
        where Redaction.secretQueryParameters.contains(item.name.lowercased()) {
            secrets.append(item.name.lowercased() + "=" + (item.value ?? ""))
        }
        if secrets.isEmpty {
            credential = nil
        } else {
            var hasher = Hasher()
            for secret in secrets.sorted() { hasher.combine(secret) }
            credential = hasher.finalize()
        }
    }

    /// `host:port` (no credential: it is never printed).
    package var description: String { host }
}
