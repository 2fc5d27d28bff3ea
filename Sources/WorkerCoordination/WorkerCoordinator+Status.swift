// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import Foundation
import PostgresNIO

extension WorkerCoordinator {
    /// Every feed of the shared schedule, by name: who holds it, until when, when it is due next.
    public func schedule() async throws(CoordinationError) -> [FeedScheduleStatus] {
        try await attempt("reading the schedule") {
            let rows = try await client.query(
                """
                SELECT feed,
                       CASE WHEN lease_expires_at > clock_timestamp() THEN lease_owner END,
                       CASE WHEN lease_expires_at > clock_timestamp() THEN lease_expires_at END,
                       next_due_at, failures, last_pulled_at, last_error, leased_at
                FROM feed_leases ORDER BY feed
                """, logger: logger)
            var feeds: [FeedScheduleStatus] = []
            for try await (feed, holder, expires, due, failures, pulled, error, leased) in rows.decode(
                (String, String?, Date?, Date, Int32, Date?, String?, Date?).self)
            {
                feeds.append(
                    FeedScheduleStatus(
                        feed: feed, heldBy: holder, leaseExpiresAt: expires, nextDueAt: due, failures: Int(failures),
                        lastPulledAt: pulled, lastError: error, leasedAt: leased))
            }
            return feeds
        }
    }

    /// Every registered worker, live or not, oldest first.
    public func workers() async throws(CoordinationError) -> [WorkerStatus] {
        try await attempt("reading the registry") {
            let rows = try await client.query(
                """
                SELECT id, started_at, last_seen_at,
                       last_seen_at > clock_timestamp() - \(settings.workerTimeout.milliseconds)::bigint * interval '1 millisecond'
                FROM worker_registry ORDER BY started_at, id
                """, logger: logger)
            var workers: [WorkerStatus] = []
            for try await (id, started, seen, live) in rows.decode((String, Date, Date, Bool).self) {
                workers.append(WorkerStatus(id: id, startedAt: started, lastSeenAt: seen, live: live))
            }
            return workers
        }
    }
}

#endif
