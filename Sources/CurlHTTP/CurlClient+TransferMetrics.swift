public import FeedCore

extension CurlClient {
    /// What one finished transfer cost, reported to the `onTransfer` callback.
    public struct TransferMetrics: Sendable {
        /// The final URL (after redirects), redacted.
        public var url: String
        /// The final status code, or `nil` when the transfer failed.
        public var status: Int?
        /// The failure kind, or `nil` when a response was received.
        public var failure: TransportError.Kind?
        /// Body bytes received, as sent (before `Content-Encoding` is decoded).
        public var bytesReceived: Int
        /// Seconds from admission to completion, as measured by libcurl.
        public var seconds: Double
        /// Seconds the request waited in the client's queue for a free slot before admission.
        public var queuedSeconds: Double
        /// Whether an already open connection was reused.
        public var connectionReused: Bool
        /// The HTTP version used (`"1.1"`, `"2"`, …), or `""` when none was negotiated.
        public var httpVersion: String
    }
}
