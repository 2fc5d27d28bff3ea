public import Foundation

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
    /// The redirects followed before the final response, in order.
    public var redirects: [HTTPRedirect] = []

    /// Creates a response.
    public init(
        status: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL, fromCache: Bool = false,
        redirects: [HTTPRedirect] = []
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
        self.fromCache = fromCache
        self.redirects = redirects
    }
}
