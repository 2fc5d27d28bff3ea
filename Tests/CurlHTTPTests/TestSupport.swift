import CurlHTTP
import FeedCore
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

/// `bytes` compressed by /bin/gzip.
func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let input = FileManager.default.temporaryDirectory.appendingPathComponent("curlhttp-\(UUID().uuidString)")
    try Data(bytes).write(to: input)
    defer { try? FileManager.default.removeItem(at: input) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-c", "-n", input.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    return Array(output)
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
