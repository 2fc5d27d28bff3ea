import CurlHTTP
import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Starts a loopback server and a client, runs `body`, then shuts both down.
func withClientAndServer(
    _ configuration: CurlClient.Configuration = CurlClient.Configuration(),
    onTransfer: (@Sendable (CurlClient.TransferMetrics) -> Void)? = nil,
    handler: @escaping LoopbackHTTPServer.Handler,
    _ body: (CurlClient, LoopbackHTTPServer) async throws -> Void
) async throws {
    try await LoopbackHTTPServer.withServer(handler: handler) { server in
        let client = CurlClient(configuration: configuration, onTransfer: onTransfer)
        defer { client.shutdown() }
        try await body(client, server)
    }
}

/// A GET request for `path` on `server`.
func get(_ server: LoopbackHTTPServer, _ path: String, headers: HTTPHeaders = [:]) throws -> HTTPRequest {
    HTTPRequest(url: try #require(URL(string: server.baseURL + path)), headers: headers)
}

/// Runs `operation`, expecting a ``TransportError``; returns it (or records an issue and returns nil).
func transportError(
    sourceLocation: Testing.SourceLocation = #_sourceLocation, _ operation: () async throws -> HTTPResponse
) async -> TransportError? {
    do {
        let response = try await operation()
        Issue.record("expected a TransportError, got status \(response.status)", sourceLocation: sourceLocation)
        return nil
    } catch let error as TransportError {
        return error
    } catch {
        Issue.record("expected a TransportError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// `bytes` compressed by /bin/gzip (spawned with posix_spawn and reaped by waitpid, like every
/// child of the tests: Foundation's Process once never saw a child exit).
func gzip(_ bytes: [UInt8]) async throws -> [UInt8] {
    let folder = try TemporaryFolder("curlhttp")
    defer { folder.remove() }
    let input = folder.url.appendingPathComponent("input")
    try Data(bytes).write(to: input)
    let output = try await ChildProcess.run(
        URL(fileURLWithPath: "/bin/gzip"), arguments: ["-c", "-n", input.path], environment: [:], timeout: .seconds(60))
    try #require(output.status == 0 && !output.terminatedBySignal, "\(output.summary)")
    return Array(output.standardOutput)
}

/// Polls `condition` every 10 ms for up to `limit`; returns whether it became true.
func eventually(within limit: Duration = .seconds(30), _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Collects values reported from other threads.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    func record(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}

/// A TCP listener on 127.0.0.1 that never accepts, its one-slot backlog already taken by a
/// connection of its own: the kernel drops further SYNs, so a client's connect hangs.
final class FullBacklogListener {
    let port: Int
    private var descriptors: [Int32] = []

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        descriptors.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        try #require(listen(listener, 0) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue (backlog 0 holds one connection on Linux).
        for _ in 0..<2 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            try #require(filler >= 0)
            descriptors.append(filler)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
    }

    func close() {
        for descriptor in descriptors { _ = Glibc.close(descriptor) }
        descriptors = []
    }
}

/// A one-connection HTTP server on a thread of its own, for tests whose timing must not depend on
/// the cooperative pool: a full test run can keep that pool's threads busy for seconds, which
/// delays a ``LoopbackHTTPServer``'s answers (its handlers run there).
///
/// It accepts one connection, reads the request head, then asks `script` for part 0, 1, 2… of
/// its answer (`nil`: done), sleeping each part's `delay` before writing its bytes, and stops
/// when the script ends, the client goes away, or ``close()`` is called.
final class ThreadedServer: Sendable {
    typealias Script = @Sendable (_ part: Int) -> (delay: Duration, bytes: [UInt8])?

    let port: Int
    private let listener: Int32
    private let stopped = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)

    init(_ script: @escaping Script) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, size) } }
        try #require(bound == 0 && listen(listener, 4) == 0)
        var length = size
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        let thread = Thread { [self] in
            defer { finished.signal() }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { _ = Glibc.close(connection) }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !received.containsHeadEnd {
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                received += buffer[0..<count]
            }
            var part = 0
            while !stopped.withLock({ $0 }), let (delay, bytes) = script(part) {
                part += 1
                Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
                let sent = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent == bytes.count else { return }  // the client went away
            }
        }
        thread.start()
    }

    /// Stops answering and waits for the server thread to end.
    func close() {
        stopped.withLock { $0 = true }
        _ = shutdown(listener, Int32(SHUT_RDWR))
        _ = Glibc.close(listener)
        finished.wait()
    }
}

extension [UInt8] {
    /// Whether the bytes contain the blank line that ends an HTTP head.
    fileprivate var containsHeadEnd: Bool {
        guard count >= 4 else { return false }
        return (0...(count - 4)).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
    }
}
