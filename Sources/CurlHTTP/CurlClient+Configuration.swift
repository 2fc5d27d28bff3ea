public import FeedCore

extension CurlClient {
    /// Which HTTP version the client negotiates.
    public enum HTTPVersion: Sendable, Hashable {
        /// HTTP/2 over TLS (negotiated with ALPN), HTTP/1.1 on plain `http` (libcurl 7.88's h2c is broken).
        case http2OverTLS
        /// HTTP/1.1 everywhere.
        case http1_1
    }

    /// Limits and defaults applied to every request a ``CurlClient`` performs.
    public struct Configuration: Sendable, Hashable {
        /// Longest time to establish a connection (DNS, TCP, TLS). Default 10 s.
        public var connectTimeout: Duration
        /// Longest time for a whole transfer, counted from admission (not while queued). Default 60 s.
        public var totalTimeout: Duration
        /// Longest time from admission (connecting included) until the first byte of the response
        /// arrives; a server that accepts the request and never answers fails with `.timedOut`
        /// sooner than ``totalTimeout``. `.zero` disables the check. Default 30 s.
        public var firstByteTimeout: Duration
        /// A transfer slower than this many bytes per second for ``lowSpeedTime`` is aborted
        /// as timed out (cuts off trickling servers); `0` disables the check. Default 1.
        public var lowSpeedLimit: Int
        /// How long a transfer may stay below ``lowSpeedLimit`` (whole seconds, rounded up). Default 30 s.
        public var lowSpeedTime: Duration
        /// Largest decoded body accepted; larger responses fail with `.responseTooLarge`. Default 64 MiB.
        public var maxResponseBytes: Int
        /// Most redirects followed (http and https only) before `.tooManyRedirects`. Default 5.
        public var maxRedirects: Int
        /// Most requests in flight (and connections open) per host and port; others wait in FIFO order. Default 16.
        public var maxConnectionsPerHost: Int
        /// Most requests in flight (and connections open) in total; others wait in FIFO order. Default 16..
        public var maxTotalConnections: Int
        /// The `User-Agent` sent unless the request sets its own. Default ``FeedaggVersion/userAgent`` (`feedagg/<version>`).
        public var userAgent: String
        /// Whether to ask for gzip and deflate (`Accept-Encoding`) and decode a body sent so; `false` sends
        /// no `Accept-Encoding` and returns every body as sent. Default `true`.
        public var acceptEncoding: Bool
        /// The HTTP version to negotiate. Default ``HTTPVersion/http2OverTLS``.
        public var httpVersion: HTTPVersion

        /// Creates a configuration; every parameter has the documented default.
        public init(
            connectTimeout: Duration = .seconds(10),
            totalTimeout: Duration = .seconds(60),
            firstByteTimeout: Duration = .seconds(30),
            lowSpeedLimit: Int = 1,
            lowSpeedTime: Duration = .seconds(30),
            maxResponseBytes: Int = 64 << 20,
            maxRedirects: Int = 5,
            maxConnectionsPerHost: Int = 16,
            maxTotalConnections: Int = 64,
            userAgent: String = FeedaggVersion.userAgent,
            acceptEncoding: Bool = true,
            httpVersion: HTTPVersion = .http2OverTLS
        ) {
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
            self.firstByteTimeout = firstByteTimeout
            self.lowSpeedLimit = lowSpeedLimit
            self.lowSpeedTime = lowSpeedTime
            self.maxResponseBytes = maxResponseBytes
            self.maxRedirects = maxRedirects
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxTotalConnections = maxTotalConnections
            self.userAgent = userAgent
            self.acceptEncoding = acceptEncoding
            self.httpVersion = httpVersion
        }

        /// Per-host admission limit, at least 1.
        var perHostLimit: Int { max(1, maxConnectionsPerHost) }
        /// Total admission limit, at least the per-host limit.
        var totalLimit: Int { max(perHostLimit, maxTotalConnections) }
    }
}

extension Duration {
    /// `2 s`, `0.5 s`, `1.25 s`: seconds as a user wrote them in feeds.yaml.
    var secondsText: String {
        let millis = clampedMilliseconds
        if millis % 1000 == 0 { return "\(millis / 1000) s" }
        var text = String(format: "%.3f", Double(millis) / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return text + " s"
    }

    /// Whole milliseconds, rounded up, clamped to `1...10^12`.
    var clampedMilliseconds: Int {
        let (seconds, attoseconds) = components
        if seconds >= 1_000_000_000 { return 1_000_000_000_000 }
        if seconds < 0 { return 1 }
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(1, millis))
    }

    /// Whole seconds, rounded up, at least 1.
    var clampedSeconds: Int {
        (clampedMilliseconds + 999) / 1000
    }
}
