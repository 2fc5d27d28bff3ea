/// What the loopback server sends back for one request.
///
/// The server always writes a correct `Content-Length` for `body` (any `Content-Length` or
/// `Transfer-Encoding` in `headers` is replaced), unless ``fault`` says otherwise. It never
/// compresses: to serve gzip, put gzip bytes in `body` and set `Content-Encoding: gzip` yourself.
public struct LoopbackResponse: Sendable {
    /// A deliberate misbehaviour, for hostile-network tests.
    public enum Fault: Sendable, Hashable {
        /// A well-formed response.
        case none
        /// The head at once, then the body `bytesPerChunk` bytes at a time, waiting `interval` between chunks.
        case trickle(bytesPerChunk: Int, interval: Duration)
        /// The head (announcing the full body), then a TCP reset instead of the body.
        case resetAfterHead
        /// Close the connection without writing anything.
        case closeWithoutResponse
        /// Announce the full `Content-Length`, send only the first `afterBytes` bytes, then close.
        case truncateBody(afterBytes: Int)
        /// Announce this `Content-Length` instead of the real one, send the whole body, then close.
        case wrongContentLength(Int)
    }

    /// The status code.
    public var status: Int
    /// Header fields, in the order to send them.
    public var headers: [(name: String, value: String)]
    /// The body bytes, sent as is.
    public var body: [UInt8]
    /// How long to wait before sending the head (the request counts as in flight meanwhile).
    public var delay: Duration?
    /// The misbehaviour to perform, ``Fault/none`` by default.
    public var fault: Fault

    /// Creates a response with a byte body.
    public init(
        status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        delay: Duration? = nil, fault: Fault = .none
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.fault = fault
    }

    /// Creates a response whose body is `text` in UTF-8.
    public init(
        status: Int = 200, headers: [(name: String, value: String)] = [], text: String,
        delay: Duration? = nil, fault: Fault = .none
    ) {
        self.init(status: status, headers: headers, body: Array(text.utf8), delay: delay, fault: fault)
    }
}
