public import FeedCore
import Foundation

/// An ``HTTPTransport`` on libcurl's multi interface.
///
/// One event-loop thread drives every transfer through a single multi handle, so connections
/// (HTTP/1.1 keep-alive, HTTP/2 over TLS) are pooled and reused across requests. Requests beyond
/// ``Configuration/maxConnectionsPerHost`` per host and port, or ``Configuration/maxTotalConnections``
/// overall, wait in FIFO order; their timeouts start only when they are admitted.
///
/// Redirects are followed (http and https only), the body is decoded according to
/// `Content-Encoding` (gzip and deflate, the encodings it asks for; in the calling task, after the
/// transfer, so a body in flight is held at its wire size), and the response headers are those of
/// the final response exactly as received (so `Content-Encoding` and `Content-Length` may describe
/// the encoded body). Any status is a
/// response; failures throw ``TransportError``, whose text never contains a secret header value.
/// Cancelling the calling task aborts the transfer with ``TransportError/Kind/cancelled``.
///
/// Call ``shutdown()`` when done (deinit does it too); requests sent afterwards throw.
public final class CurlClient: HTTPTransport {
    /// The limits applied to every request.
    public let configuration: Configuration
    private let loop: CurlEventLoop

    /// Creates a client and starts its event-loop thread.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, limits and protocol choices.
    ///   - onTransfer: Called once per finished transfer (success or failure, not for requests
    ///     cancelled or refused before they started) with its metrics, on the client's loop thread:
    ///     it must return quickly and must not wait for other requests.
    public init(
        configuration: Configuration = Configuration(),
        onTransfer: (@Sendable (TransferMetrics) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.loop = CurlEventLoop(configuration: configuration, onTransfer: onTransfer)
    }

    deinit {
        loop.shutdown()
    }

    /// Performs `request` and returns its final response (after redirects, body decoded).
    ///
    /// Throws ``TransportError`` when no HTTP response was received: connection failure, timeout,
    /// too many redirects, TLS failure, a body over ``Configuration/maxResponseBytes``, a malformed
    /// or truncated response, cancellation, or a client that has been shut down.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try CurlClient.validate(request)
        let id = try loop.register(request.url)
        let loop = self.loop
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let submission = Submission(id: id, request: request, continuation: continuation, submittedAt: .now)
                if let refusal = loop.submit(submission) {
                    continuation.resume(throwing: refusal)
                }
            }
        } onCancel: {
            loop.cancel(id)
        }
        guard configuration.acceptEncoding else { return response }
        return try ContentDecoding.decode(response, limit: configuration.maxResponseBytes)
    }

    /// Stops the event-loop thread and frees every libcurl resource; requests still in flight fail
    /// with ``TransportError/Kind/cancelled``, later ones throw. Idempotent; blocks until the loop
    /// thread has finished (except when called from `onTransfer`, on that thread).
    public func shutdown() {
        loop.shutdown()
    }

    /// Rejects requests libcurl must not see: non-HTTP schemes, and header fields that would
    /// inject lines. Never quotes a header value.
    private static func validate(_ request: HTTPRequest) throws {
        let scheme = request.url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw TransportError(kind: .other, url: request.url, detail: "unsupported URL scheme (only http and https)")
        }
        let method = request.method
        guard !method.isEmpty, method.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic }) else {
            throw TransportError(kind: .other, url: request.url, detail: "invalid HTTP method")
        }
        for (name, value) in request.headers {
            let nameIsToken = !name.isEmpty && name.utf8.allSatisfy { byte in
                byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: ":")
            }
            guard nameIsToken else {
                throw TransportError(kind: .other, url: request.url, detail: "invalid header field name")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw TransportError(kind: .other, url: request.url, detail: "header field \(name) has a line break in its value")
            }
        }
    }
}
