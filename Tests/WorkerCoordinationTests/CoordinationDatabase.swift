// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedaggTesting
import Foundation
import Logging
import PostgresNIO
import WorkerCoordination

/// A fresh database in the shared test cluster with the coordination tables, and a running
/// `PostgresClient` on it for the length of `body`.
func withCoordinationDatabase<T: Sendable>(
    _ body: (PostgresClient, FeedaggTesting.PostgresDatabase) async throws -> T
) async throws -> T {
    let cluster = try await PostgresCluster.shared()
    let database = try await cluster.createDatabase("coordination")
    let client = makeClient(database)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        defer { group.cancelAll() }
        try await WorkerCoordinator.migrate(client, logger: testLogger)
        return try await body(client, database)
    }
}

/// A client of `database` as the cluster's superuser (trust on loopback).
func makeClient(_ database: FeedaggTesting.PostgresDatabase) -> PostgresClient {
    var configuration = PostgresClient.Configuration(
        host: database.cluster.host, port: database.cluster.port, username: database.cluster.superuser, password: nil,
        database: database.name, tls: .disable)
    configuration.options.maximumConnections = 8
    return PostgresClient(configuration: configuration)
}

let testLogger = Logger(label: "worker-coordination-tests")

/// `count` feed names, `feed-000`…, each with `interval`.
func feeds(_ count: Int, interval: Duration = .seconds(3600)) -> [String: Duration] {
    Dictionary(uniqueKeysWithValues: (0..<count).map { (String(format: "feed-%03d", $0), interval) })
}

/// Calls `body` every 100 ms until it returns a value or `timeout` passes (then `nil`).
func poll<T>(timeout: Duration = .seconds(300), _ body: () async throws -> T?) async throws -> T? {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let value = try await body() { return value }
        try await Task.sleep(for: .milliseconds(100))
    }
    return nil
}

#endif
