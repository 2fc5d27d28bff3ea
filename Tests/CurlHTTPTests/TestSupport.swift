import CurlHTTP
import FeedCore
import Foundation
import LoopbackServer
import Synchronization
import Testing

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
