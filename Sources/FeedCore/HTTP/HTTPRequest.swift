public import Foundation

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
