// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import Logging
import PostgresNIO

/// The coordination tables' versioned migrations, in a migrations table of their own
/// (`worker_coordination_migrations`), so they never collide with the store's.
///
/// Every migration runs in one transaction holding `pg_advisory_xact_lock` on a key of its own:
/// a second worker migrating at the same time waits, then finds the work done.
enum CoordinationMigrations {
    /// `pg_advisory_xact_lock` key: "feedaggW" as eight ASCII bytes.
    static let lockKey: Int64 = 0x6665_6564_6167_6757

    /// Version → its statements, applied in order.
    static let all: [(version: Int32, statements: [String])] = [
        (
            1,
            [
                """
                CREATE TABLE worker_registry (
                    id text PRIMARY KEY,
                    started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    last_seen_at timestamptz NOT NULL DEFAULT clock_timestamp())
                """,
                """
                CREATE TABLE feed_leases (
                    feed text PRIMARY KEY,
                    interval_ms bigint NOT NULL,
                    next_due_at timestamptz NOT NULL,
                    lease_owner text,
                    lease_expires_at timestamptz,
                    lease_generation bigint NOT NULL DEFAULT 0,
                    failures integer NOT NULL DEFAULT 0,
                    last_pulled_at timestamptz,
                    last_error text,
                    origin text NOT NULL DEFAULT '',
                    credential text NOT NULL DEFAULT '',
                    leased_at timestamptz,
                    refresh_requested_at timestamptz)
                """,
                "CREATE INDEX feed_leases_next_due ON feed_leases (next_due_at)",
                """
                CREATE TABLE rate_limit_pauses (
                    origin text NOT NULL,
                    credential text NOT NULL,
                    until timestamptz NOT NULL,
                    set_by text NOT NULL,
                    PRIMARY KEY (origin, credential))
                """,
            ]
        )
    ]

    /// The latest version.
    static var latest: Int32 { all.map(\.version).max() ?? 0 }

    /// Brings the database to ``latest``; returns the versions this call applied.
    static func migrate(_ client: PostgresClient, logger: Logger) async throws -> [Int32] {
        try await client.withTransaction(logger: logger) { connection -> [Int32] in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS worker_coordination_migrations (
                    version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())
                """, logger: logger)
            var current: Int32 = 0
            let rows = try await connection.query(
                "SELECT coalesce(max(version), 0) FROM worker_coordination_migrations", logger: logger)
            for try await version in rows.decode(Int32.self) { current = version }
            var applied: [Int32] = []
            for migration in all where migration.version > current {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO worker_coordination_migrations (version) VALUES (\(migration.version))", logger: logger)
                applied.append(migration.version)
            }
            return applied
        }
    }
}

#endif
