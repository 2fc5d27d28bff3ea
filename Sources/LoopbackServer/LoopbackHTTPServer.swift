import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An in-process HTTP/1.1 server on 127.0.0.1, for replaying fixtures and for tests.
///
/// Connections are persistent (keep-alive) unless the client or the response asks to close;
/// requests on one connection are answered in order; `TCP_NODELAY` is set. Each request is passed
/// to the async handler, whose tasks live inside the server and end with ``shutdown()``. Those
/// tasks prefer an executor of the server's own, so a busy cooperative pool (tests computing in
/// the same process) does not hold up the answers.
public final class LoopbackHTTPServer: Sendable {
    /// The handler that turns each request into a response.
    public typealias Handler = @Sendable (LoopbackRequest) async -> LoopbackResponse

    /// Counters about what the server has seen since it started.
    public struct Stats: Sendable, Hashable {
        /// Responses produced by the handler (counted before any ``LoopbackResponse/Fault`` is acted out).
        public var requestsServed = 0
        /// TCP connections accepted.
        public var connectionsOpened = 0
        /// Requests in flight now: received, response not yet being written.
        public var inFlight = 0
        /// The highest ``inFlight`` seen.
        public var maxInFlight = 0
    }

    /// The TCP port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// A snapshot of the counters.
    public var stats: Stats { shared.counters.withLock { $0 } }

    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let shared: Shared
    private let acceptLoop: Task<Void, Never>

    /// State shared by the server object and its connection tasks.
    private final class Shared: Sendable {
        /// The counters behind ``LoopbackHTTPServer/stats``.
        let counters = Mutex(Stats())
        /// Open connections, closed by `shutdown()`.
        let connections = Mutex<[ObjectIdentifier: any Channel]>([:])
        /// Whether `shutdown()` has run.
        let stopped = Mutex(false)
    }

    private init(
        port: Int, group: MultiThreadedEventLoopGroup, listener: any Channel, shared: Shared,
        acceptLoop: Task<Void, Never>
    ) {
        self.port = port
        self.group = group
        self.listener = listener
        self.shared = shared
        self.acceptLoop = acceptLoop
    }

    /// Starts a server bound to 127.0.0.1 only, on `port` (0: an ephemeral port), answering with `handler`.
    ///
    /// The caller owns the server and must call ``shutdown()`` (or use ``withServer(port:handler:isolation:_:)``),
    /// which stops its event-loop thread.
    public static func start(port: Int = 0, handler: @escaping Handler) async throws -> LoopbackHTTPServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
        do {
            server = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .bind(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                            wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        let shared = Shared()
        let executor = ServerTaskExecutor(label: "feedagg.loopback-server")
        let acceptLoop = Task<Void, Never>(executorPreference: executor) {
            _ = try? await server.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { tasks in
                    for try await connection in inbound {
                        tasks.addTask {
                            await serve(connection, handler: handler, shared: shared)
                        }
                    }
                }
            }
        }
        return LoopbackHTTPServer(
            port: server.channel.localAddress?.port ?? port, group: group, listener: server.channel,
            shared: shared, acceptLoop: acceptLoop)
    }

    /// Starts a server, runs `body` with it, and shuts it down whether `body` returns or throws.
    public static func withServer<Result>(
        port: Int = 0, handler: @escaping Handler,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (LoopbackHTTPServer) async throws -> Result
    ) async throws -> Result {
        let server = try await start(port: port, handler: handler)
        let result: Result
        do {
            result = try await body(server)
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
        return result
    }

    /// Stops listening, closes every connection, ends the handler tasks and the event loop. Idempotent.
    ///
    /// The accept loop is not cancelled: it runs until the closed listener's stream ends, so a
    /// connection accepted while the server stops is still taken (and closed at once, see
    /// `serve`). Cancelling it dropped such a connection's `NIOAsyncChannel` unfinished, and NIO
    /// then stopped the whole test process ("Deinited NIOAsyncWriter without calling finish()"). A
    /// loop still running after 10 s is cancelled anyway.
    public func shutdown() async throws {
        let first = shared.stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        try? await listener.close()
        for channel in shared.connections.withLock({ Array($0.values) }) {
            channel.close(promise: nil)
        }
        let acceptLoop = self.acceptLoop
        let watchdog = Task {
            try await Task.sleep(for: .seconds(10))
            acceptLoop.cancel()
        }
        await acceptLoop.value
        watchdog.cancel()
        if first { try await group.shutdownGracefully() }
    }

    // MARK: Connection handling

    private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// Serves requests on one connection until either side closes it.
    private static func serve(
        _ connection: Connection, handler: Handler, shared: Shared
    ) async {
        let key = ObjectIdentifier(connection.channel)
        let channel = connection.channel
        shared.counters.withLock { $0.connectionsOpened += 1 }
        shared.connections.withLock { $0[key] = channel }
        defer { _ = shared.connections.withLock { $0.removeValue(forKey: key) } }
        do {
            try await connection.executeThenClose { inbound, outbound in
                // Accepted while the server stops (after shutdown() closed the connections it knew):
                // closed at once, its async channel finished by executeThenClose.
                if shared.stopped.withLock({ $0 }) { return }
                var head: HTTPRequestHead?
                var body: [UInt8] = []
                for try await part in inbound {
                    switch part {
                    case .head(let received):
                        head = received
                        body = []
                    case .body(let chunk):
                        body += chunk.readableBytesView
                    case .end:
                        guard let requestHead = head else { continue }
                        head = nil
                        let keepOpen = try await respond(
                            to: requestHead, body: body, handler: handler, counters: shared.counters,
                            outbound: outbound, channel: channel)
                        if !keepOpen { return }
                    }
                }
            }
        } catch {
            // The peer went away or the server is shutting down: nothing to report to anyone.
        }
    }

    /// Runs the handler for one request and writes its response; returns whether the connection stays open.
    private static func respond(
        to head: HTTPRequestHead, body: [UInt8], handler: Handler, counters: borrowing Mutex<Stats>,
        outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, channel: any Channel
    ) async throws -> Bool {
        let request = LoopbackRequest(
            method: head.method.rawValue, target: head.uri,
            headers: head.headers.map { (name: $0.name, value: $0.value) }, body: body)
        counters.withLock { stats in
            stats.inFlight += 1
            stats.maxInFlight = max(stats.maxInFlight, stats.inFlight)
        }
        let response = await handler(request)
        var delayError: (any Error)?
        if let delay = response.delay {
            do { try await Task.sleep(for: delay) } catch { delayError = error }
        }
        // Leave "in flight" before writing, so a client that reacts to this response at once
        // can never be seen overlapping with it.
        counters.withLock { stats in
            stats.inFlight -= 1
            stats.requestsServed += 1
        }
        if let delayError { throw delayError }

        let isHead = head.method == .HEAD
        let wantsClose = response.headers.contains {
            $0.name.lowercased() == "connection" && $0.value.lowercased().contains("close")
        }
        let keepAlive = head.isKeepAlive && !wantsClose
        var headers = HTTPHeaders()
        for (name, value) in response.headers {
            let lower = name.lowercased()
            if lower == "content-length" || lower == "transfer-encoding" { continue }
            headers.add(name: name, value: value)
        }
        let bodyAllowed = !(100..<200).contains(response.status) && response.status != 204 && response.status != 304
        if bodyAllowed {
            if case .wrongContentLength(let announced) = response.fault {
                headers.add(name: "Content-Length", value: String(announced))
            } else {
                headers.add(name: "Content-Length", value: String(response.body.count))
            }
        }
        if !keepAlive && !wantsClose { headers.add(name: "Connection", value: "close") }
        let responseHead = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        let sendsBody = bodyAllowed && !isHead && !response.body.isEmpty
        let bodyPart = { (bytes: ArraySlice<UInt8>) in HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes))) }

        switch response.fault {
        case .none:
            var parts: [HTTPServerResponsePart] = [.head(responseHead)]
            if sendsBody { parts.append(bodyPart(response.body[...])) }
            parts.append(.end(nil))
            try await outbound.write(contentsOf: parts)
            return keepAlive
        case .trickle(let bytesPerChunk, let interval):
            try await outbound.write(.head(responseHead))
            if sendsBody {
                var start = 0
                let step = max(1, bytesPerChunk)
                while start < response.body.count {
                    let end = min(start + step, response.body.count)
                    try await outbound.write(bodyPart(response.body[start..<end]))
                    start = end
                    if start < response.body.count { try await Task.sleep(for: interval) }
                }
            }
            try await outbound.write(.end(nil))
            return keepAlive
        case .resetAfterHead:
            try await outbound.write(.head(responseHead))
            if let provider = channel as? any SocketOptionProvider {
                try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            }
            return false
        case .closeWithoutResponse:
            return false
        case .truncateBody(let afterBytes):
            var parts: [HTTPServerResponsePart] = [.head(responseHead)]
            let cut = min(max(0, afterBytes), response.body.count)
            if sendsBody && cut > 0 { parts.append(bodyPart(response.body[..<cut])) }
            try await outbound.write(contentsOf: parts)
            return false
        case .wrongContentLength:
            var parts: [HTTPServerResponsePart] = [.head(responseHead)]
            if sendsBody { parts.append(bodyPart(response.body[...])) }
            parts.append(.end(nil))
            try await outbound.write(contentsOf: parts)
            return false
        }
    }
}
