// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import Foundation
public import Logging
public import PostgresNIO

/// One `feedagg serve` worker's view of the feeds it shares with other workers through PostgreSQL
/// (the Miniflux shape: no coordinator process of our own, the database is the coordinator).
///
/// - **Registry**: each worker registers (``register()``) and beats (``heartbeat()``); one not seen
///   for ``CoordinationSettings/workerTimeout`` is no longer live.
/// - **Leases**: ``leaseDueFeeds(limit:)`` takes due feeds with `SELECT … FOR UPDATE SKIP LOCKED`,
///   so each due feed goes to exactly one worker; the lease expires after
///   ``CoordinationSettings/leaseTimeout`` unless ``renew(_:)``ed, so the feeds of a worker killed
///   mid-pull go to another one then. ``complete(_:outcome:)`` sets when the feed is due next.
/// - **Per-host limits**: ``connectionsPerHost()`` divides `max_connections_per_host` among the
///   live workers; ``recordPause(origin:credential:until:setBy:)`` shares a rate limit's reset
///   with every worker, which checks ``pause(origin:credential:)`` before requesting that origin.
/// - **Status**: ``schedule()`` and ``workers()`` for `feeds` and `/api/feeds`.
///
/// Every time that matters is the database's clock (`clock_timestamp()`), so workers on machines
/// whose clocks differ agree on when a lease ends. The caller owns `client` and runs it
/// (`PostgresClient.run()`); ``migrate(_:logger:)`` once before use.
public final class WorkerCoordinator: Sendable {
    /// This worker.
    public let id: WorkerID
    /// Lease length, jitter, backoff, the per-host budget.
    public let settings: CoordinationSettings
    let client: PostgresClient
    let logger: Logger

    /// A coordinator for worker `id` on `client`'s database.
    public init(client: PostgresClient, id: WorkerID = .current(), settings: CoordinationSettings = .init(), logger: Logger) {
        self.client = client
        self.id = id
        self.settings = settings
        self.logger = logger
    }

    /// Creates or upgrades the coordination tables (safe while other workers do the same); returns
    /// the versions applied by this call (empty when already current).
    @discardableResult
    public static func migrate(_ client: PostgresClient, logger: Logger) async throws(CoordinationError) -> [Int32] {
        do {
            return try await CoordinationMigrations.migrate(client, logger: logger)
        } catch {
            throw CoordinationError("migrating to version \(CoordinationMigrations.latest)", worker: nil, cause: error)
        }
    }

    /// The `pg_advisory_xact_lock` key ``migrate(_:logger:)`` holds while it migrates: another
    /// session holding it keeps every worker from joining (the serve tests use that).
    public static var migrationLockKey: Int64 { CoordinationMigrations.lockKey }

    /// Runs `body`, wrapping any error with `operation` and this worker's id.
    @discardableResult
    func attempt<T>(_ operation: String, _ body: () async throws -> T) async throws(CoordinationError) -> T {
        do {
            return try await body()
        } catch {
            throw CoordinationError(operation, worker: id, cause: error)
        }
    }

    // MARK: - Registry

    /// Adds this worker to the registry (or refreshes it).
    public func register() async throws(CoordinationError) {
        try await attempt("registering") {
            try await client.query(
                """
                INSERT INTO worker_registry (id) VALUES (\(id.rawValue))
                ON CONFLICT (id) DO UPDATE SET last_seen_at = clock_timestamp()
                """, logger: logger)
        }
    }

    /// Records that this worker is alive, renews every lease it holds, and returns how many workers
    /// are live (itself included). Call it well within ``CoordinationSettings/workerTimeout``.
    @discardableResult
    public func heartbeat() async throws(CoordinationError) -> Int {
        try await attempt("sending a heartbeat") {
            try await client.query(
                """
                INSERT INTO worker_registry (id) VALUES (\(id.rawValue))
                ON CONFLICT (id) DO UPDATE SET last_seen_at = clock_timestamp()
                """, logger: logger)
            try await client.query(
                """
                UPDATE feed_leases
                SET lease_expires_at = clock_timestamp() + \(settings.leaseTimeout.milliseconds)::bigint * interval '1 millisecond'
                WHERE lease_owner = \(id.rawValue) AND lease_expires_at > clock_timestamp()
                """, logger: logger)
            return try await liveWorkerCount()
        }
    }

    /// Leaves the registry and gives back every feed this worker holds (due at once for others).
    public func unregister() async throws(CoordinationError) {
        try await attempt("unregistering") {
            try await client.query(
                "UPDATE feed_leases SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = \(id.rawValue)",
                logger: logger)
            try await client.query("DELETE FROM worker_registry WHERE id = \(id.rawValue)", logger: logger)
        }
    }

    /// Workers seen within the worker timeout.
    func liveWorkerCount() async throws -> Int {
        let rows = try await client.query(
            """
            SELECT count(*) FROM worker_registry
            WHERE last_seen_at > clock_timestamp() - \(settings.workerTimeout.milliseconds)::bigint * interval '1 millisecond'
            """, logger: logger)
        var count = 0
        for try await value in rows.decode(Int64.self) { count = Int(value) }
        return count
    }

    // MARK: - Per-host budget

    /// This worker's share of `max_connections_per_host`: the setting divided by the live workers,
    /// rounded down, and at least 1 (so with more live workers than the setting, the total is one
    /// connection per worker). Recomputed at each call: when a worker dies its share returns to the
    /// others after the worker timeout.
    public func connectionsPerHost() async throws(CoordinationError) -> Int {
        let live = try await attempt("counting live workers") { try await liveWorkerCount() }
        return max(1, settings.maxConnectionsPerHost / max(1, live))
    }
}

#endif
