public import Foundation

/// A case-insensitive, order-preserving list of HTTP header fields.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in the order they were added, names as given.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from name/value pairs, keeping their order.
    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the field `name` (case-insensitive), if any.
    public subscript(name: String) -> String? {
        let lower = name.lowercased()
        return fields.first { $0.name.lowercased() == lower }?.value
    }

    /// Every value of the field `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        let lower = name.lowercased()
        return fields.filter { $0.name.lowercased() == lower }.map(\.value)
    }

    /// Appends a field, keeping any existing field of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` with one field holding `value` (or removes them when `nil`).
    public mutating func set(_ name: String, _ value: String?) {
        let lower = name.lowercased()
        fields.removeAll { $0.name.lowercased() == lower }
        if let value { fields.append((name: name, value: value)) }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }
}

/// One HTTP request as the engine hands it to a transport.
public struct HTTPRequest: Sendable, Hashable {
    /// The absolute URL to fetch.
    public var url: URL
    /// The method, `GET` for every feed request.
    public var method: String
    /// Request header fields (credentials included; transports and logs must redact them).
    public var headers: HTTPHeaders

    /// Creates a request.
    public init(url: URL, method: String = "GET", headers: HTTPHeaders = [:]) {
        self.url = url
        self.method = method
        self.headers = headers
    }
}

/// A complete HTTP response.
public struct HTTPResponse: Sendable {
    /// The status code of the final response (after redirects).
    public var status: Int
    /// Header fields of the final response.
    public var headers: HTTPHeaders
    /// The decoded (decompressed) body.
    public var body: Data
    /// The URL the response came from, after redirects.
    public var url: URL
    /// Whether the body was served from a local cache rather than the network.
    public var fromCache: Bool

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL, fromCache: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
        self.fromCache = fromCache
    }
}

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

    public var description: String {
        "\(kind.rawValue): \(detail) (\(Redaction.redact(url)))"
    }
}

/// The seam for all network traffic: libcurl in production, loopback servers in tests.
///
/// A conformer must be safe to call from many tasks at once, must follow redirects,
/// return the decompressed body, and throw ``TransportError`` (never a bare error) when no
/// HTTP response was received. Any status code, including 4xx and 5xx, is a response, not an error.
public protocol HTTPTransport: Sendable {
    /// Performs `request` and returns its final response.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// Removes secrets from URLs and headers before they are printed or logged.
public enum Redaction {
    /// Query parameters whose values are secrets.
    public static let secretQueryParameters: Set<String> = [
        "access_token", "token", "consumer_key", "consumer_secret", "client_secret", "client_id",
        "api_key", "apikey", "key", "secret", "password", "sig", "signature",
    ]
    /// Header fields whose values are secrets.
    public static let secretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
    ]

    /// The URL with credentials in user-info and secret query values replaced by `REDACTED`.
    public static func redact(_ url: URL) -> String {
        redact(url.absoluteString)
    }

    /// The URL string with credentials in user-info and secret query values replaced by `REDACTED`.
    public static func redact(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        var changed = false
        if components.password != nil || components.user != nil {
            components.user = nil
            components.password = nil
            changed = true
        }
        if let items = components.percentEncodedQueryItems {
            let mapped = items.map { item -> URLQueryItem in
                if secretQueryParameters.contains(item.name.lowercased()), item.value != nil {
                    changed = true
                    return URLQueryItem(name: item.name, value: "REDACTED")
                }
                return item
            }
            components.percentEncodedQueryItems = mapped
        }
        guard changed, let string = components.string else { return url }
        return string
    }

    /// `redacted` (a URL string from ``redact(_:)-(URL)``) with each `REDACTED` secret query value
    /// put back from the same parameter of `original` (e.g. the feed's first page URL), so a URL
    /// stored without its secrets can be requested again; `nil` when a secret cannot be restored.
    public static func restore(_ redacted: String, secretsFrom original: URL) -> URL? {
        guard var components = URLComponents(string: redacted) else { return nil }
        let known = URLComponents(url: original, resolvingAgainstBaseURL: true)?.percentEncodedQueryItems ?? []
        if let items = components.percentEncodedQueryItems {
            var restored: [URLQueryItem] = []
            for item in items {
                guard secretQueryParameters.contains(item.name.lowercased()), item.value == "REDACTED" else {
                    restored.append(item)
                    continue
                }
                guard let value = known.first(where: { $0.name == item.name })?.value else { return nil }
                restored.append(URLQueryItem(name: item.name, value: value))
            }
            components.percentEncodedQueryItems = restored
        }
        return components.url
    }

    /// The header value, or `REDACTED` when the field carries a secret.
    public static func redact(header name: String, value: String) -> String {
        secretHeaders.contains(name.lowercased()) ? "REDACTED" : value
    }
}
