// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

public import FeedStorage
import Logging
import PostgresFeedStore
import PostgresNIO

extension WorkerCoordinator {
    /// The shared schedule of the database `url` names, for a process that is not a worker
    /// (`feedagg feeds`): `nil` when no worker ever ran there (no coordination tables).
    ///
    /// Reads on one connection of its own, closed before it returns; registers nothing.
    public static func readSchedule(_ url: PostgresURL) async throws(CoordinationError) -> [FeedScheduleStatus]? {
        let logger = Logger(label: "feedagg.workers", factory: { _ in SwiftLogNoOpLogHandler() })
        do {
            // The store's TLS settings (PostgresURL.tls), as every connection to the store.
            let client = PostgresClient(
                configuration: try url.clientConfiguration(maximumConnections: 1), backgroundLogger: logger)
            return try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                let rows = try await client.query("SELECT to_regclass('feed_leases') IS NOT NULL", logger: logger)
                var exists = false
                for try await present in rows.decode(Bool.self) { exists = present }
                guard exists else { return nil }
                return try await WorkerCoordinator(client: client, id: WorkerID("reader"), logger: logger).schedule()
            }
        } catch let error as CoordinationError {
            throw error
        } catch {
            throw CoordinationError("reading the schedule", worker: nil, cause: error)
        }
    }
}

#endif
