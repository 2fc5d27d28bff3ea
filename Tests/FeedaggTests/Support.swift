import FeedCore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// Helpers shared by the FeedaggTests suites: quiet pulls through the aggregator, a request
// recorder for loopback servers, the bench server. (Temporary folders: FeedaggTesting; real-world
// recordings and the test-only Link-paginated source: FeedCoreTests, where the engine is tested.)

// MARK: - Quiet pulls

/// Writes `yaml` to a temporary feeds.yaml and pulls it through the aggregator into a temporary
/// store, quietly, keeping each result's items.
func pullQuietly(_ yaml: String, environment: [String: String] = [:]) async throws -> PullReport {
    let folder = try TemporaryFolder("feedagg-pull")
    defer { folder.remove() }
    let config = try folder.write("feeds.yaml", yaml)
    var settings = PullSettings(configPath: config.path)
    settings.quiet = true
    settings.store = .temporary
    settings.retainItems = true
    return try await Aggregator(console: Console(), environment: environment).pull(settings)
}

// MARK: - Real-world recordings

/// Why tests that read `../shared/realworld` are skipped.
let realworldMissing = Comment(rawValue: RepositoryPaths.realworldUnavailableReason)

// MARK: - Loopback request log

/// Collects what a scripted loopback server received.
final class RequestLog: Sendable {
    private let storage = Mutex<[LoopbackRequest]>([])

    func record(_ request: LoopbackRequest) {
        storage.withLock { $0.append(request) }
    }

    var requests: [LoopbackRequest] { storage.withLock { $0 } }
}

// MARK: - Bench server

/// Why bench-server tests are skipped.
let benchServerMissing = Comment(rawValue: BenchServer.unavailableReason)

/// Starts a bench server, runs `body`, and stops the server however `body` ends.
func withBenchServer<Result>(
    _ options: BenchServer.Options, _ body: (BenchServer) async throws -> Result
) async throws -> Result {
    let server = try await BenchServer.start(options)
    defer { server.stop() }
    return try await body(server)
}
