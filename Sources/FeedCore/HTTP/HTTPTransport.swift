import Foundation

/// The seam for all network traffic: libcurl in production, loopback servers in tests.
///
/// A conformer must be safe to call from many tasks at once, must follow redirects,
/// return the decompressed body, and throw ``TransportError`` (never a bare error) when no
/// HTTP response was received. Any status code, including 4xx and 5xx, is a response, not an error.
public protocol HTTPTransport: Sendable {
    /// Performs `request` and returns its final response.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
