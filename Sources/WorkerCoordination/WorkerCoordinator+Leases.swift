import Foundation
import PostgresNIO

extension WorkerCoordinator {
    /// Puts `feeds` (name → interval) in the shared schedule: a new feed is due at once; a known
    /// one keeps its next due time and takes the new interval. Every worker declares the feeds of
    /// its configuration; declaring is idempotent.
    public func declare(_ feeds: [String: Duration]) async throws(CoordinationError) {
        guard !feeds.isEmpty else { return }
        let sorted = feeds.sorted { $0.key < $1.key }
        let names = sorted.map(\.key)
        let intervals = sorted.map { max(1, $0.value.milliseconds) }
        try await attempt("declaring \(feeds.count) feeds") {
            try await client.query(
                """
                INSERT INTO feed_leases (feed, interval_ms, next_due_at)
                SELECT name, interval_ms, clock_timestamp() FROM unnest(\(names)::text[], \(intervals)::bigint[]) AS d(name, interval_ms)
                ON CONFLICT (feed) DO UPDATE SET interval_ms = EXCLUDED.interval_ms
                """, logger: logger)
        }
    }

    /// Takes up to `limit` due feeds, earliest due first, that no live lease holds: each is leased
    /// to this worker alone (`FOR UPDATE SKIP LOCKED`: a feed another worker is taking meanwhile is
    /// skipped, not waited for) until now + the lease timeout.
    public func leaseDueFeeds(limit: Int) async throws(CoordinationError) -> [FeedLease] {
        guard limit > 0 else { return [] }
        return try await attempt("leasing due feeds") {
            let rows = try await client.query(
                """
                WITH due AS (
                    SELECT feed, lease_owner AS previous_owner FROM feed_leases
                    WHERE next_due_at <= clock_timestamp()
                      AND (lease_owner IS NULL OR lease_expires_at <= clock_timestamp())
                    ORDER BY next_due_at, feed
                    LIMIT \(Int64(limit))
                    FOR UPDATE SKIP LOCKED)
                UPDATE feed_leases AS f
                SET lease_owner = \(id.rawValue),
                    lease_expires_at = clock_timestamp() + \(settings.leaseTimeout.milliseconds)::bigint * interval '1 millisecond',
                    lease_generation = f.lease_generation + 1
                FROM due WHERE f.feed = due.feed
                RETURNING f.feed, f.lease_generation, f.lease_expires_at, due.previous_owner
                """, logger: logger)
            var leases: [FeedLease] = []
            for try await (feed, generation, expiresAt, previous) in rows.decode((String, Int64, Date, String?).self) {
                leases.append(FeedLease(feed: feed, generation: generation, expiresAt: expiresAt, takenOverFrom: previous))
            }
            return leases.sorted { $0.feed < $1.feed }
        }
    }

    /// Extends `lease` to now + the lease timeout; `nil` when this worker no longer holds it
    /// (it expired and another worker took the feed).
    public func renew(_ lease: FeedLease) async throws(CoordinationError) -> FeedLease? {
        try await attempt("renewing the lease of \(lease.feed)") {
            let rows = try await client.query(
                """
                UPDATE feed_leases
                SET lease_expires_at = clock_timestamp() + \(settings.leaseTimeout.milliseconds)::bigint * interval '1 millisecond'
                WHERE feed = \(lease.feed) AND lease_owner = \(id.rawValue) AND lease_generation = \(lease.generation)
                RETURNING lease_expires_at
                """, logger: logger)
            var renewed: FeedLease?
            for try await expiresAt in rows.decode(Date.self) {
                renewed = FeedLease(
                    feed: lease.feed, generation: lease.generation, expiresAt: expiresAt, takenOverFrom: lease.takenOverFrom)
            }
            return renewed
        }
    }

    /// Ends `lease` and sets when the feed is due next from `outcome`: one interval × (1 ± jitter)
    /// after a success; after the n-th failure in a row, interval × 2ⁿ (at most the backoff cap,
    /// and at most a day unless the interval is longer), and never before a rate limit's reset.
    /// Returns `false` (and changes nothing) when the lease was lost to another worker.
    @discardableResult
    public func complete(_ lease: FeedLease, outcome: PullOutcome) async throws(CoordinationError) -> Bool {
        let jitterFactor = settings.jitter == 0 ? 1 : Double.random(in: (1 - settings.jitter)...(1 + settings.jitter))
        let succeeded: Bool
        let message: String?
        let notBefore: Date?
        switch outcome {
        case .succeeded: (succeeded, message, notBefore) = (true, nil, nil)
        case .failed(let text, let until): (succeeded, message, notBefore) = (false, text, until)
        }
        let cap = Int64(settings.maxBackoffFactor)
        return try await attempt("completing the lease of \(lease.feed)") {
            let rows = try await client.query(
                """
                UPDATE feed_leases
                SET lease_owner = NULL, lease_expires_at = NULL,
                    failures = CASE WHEN \(succeeded) THEN 0 ELSE failures + 1 END,
                    last_pulled_at = clock_timestamp(),
                    last_error = \(message),
                    next_due_at = greatest(
                        clock_timestamp() + interval '1 millisecond' * (CASE WHEN \(succeeded)
                            THEN interval_ms * \(jitterFactor)::double precision
                            ELSE least(interval_ms * least(\(cap)::bigint, power(2, least(failures + 1, 62))::bigint),
                                       greatest(interval_ms, 86400000))::double precision END),
                        coalesce(\(notBefore)::timestamptz, '-infinity'::timestamptz))
                WHERE feed = \(lease.feed) AND lease_owner = \(id.rawValue) AND lease_generation = \(lease.generation)
                RETURNING feed
                """, logger: logger)
            var updated = false
            for try await _ in rows.decode(String.self) { updated = true }
            return updated
        }
    }

    /// Makes `feeds` due now (a refresh asked for through one worker reaches whichever takes them).
    public func makeDue(_ feeds: [String]) async throws(CoordinationError) {
        try await attempt("making \(feeds.count) feeds due") {
            try await client.query(
                "UPDATE feed_leases SET next_due_at = clock_timestamp() WHERE feed = ANY(\(feeds)::text[])", logger: logger)
        }
    }
}
