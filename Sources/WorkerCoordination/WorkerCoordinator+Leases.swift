// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

public import Foundation
import PostgresNIO

extension WorkerCoordinator {
    /// Puts `feeds` (name → interval) in the shared schedule, with no origin (no rate-limit pause
    /// applies to them): see ``declare(_:)-(DeclaredFeed)``.
    public func declare(_ feeds: [String: Duration]) async throws(CoordinationError) {
        try await declare(feeds.map { DeclaredFeed(name: $0.key, interval: $0.value) })
    }

    /// Puts `feeds` in the shared schedule: a new feed is due at once; a known one keeps its next
    /// due time and takes the new interval, origin and credential digest. Every worker declares the
    /// feeds of its configuration; declaring is idempotent.
    public func declare(_ feeds: [DeclaredFeed]) async throws(CoordinationError) {
        guard !feeds.isEmpty else { return }
        let sorted = feeds.sorted { $0.name < $1.name }
        let names = sorted.map(\.name)
        let intervals = sorted.map { max(1, $0.interval.milliseconds) }
        let origins = sorted.map(\.origin)
        let credentials = sorted.map(\.credential)
        try await attempt("declaring \(feeds.count) feeds") {
            try await client.query(
                """
                INSERT INTO feed_leases (feed, interval_ms, next_due_at, origin, credential)
                SELECT name, interval_ms, clock_timestamp(), origin, credential
                FROM unnest(\(names)::text[], \(intervals)::bigint[], \(origins)::text[], \(credentials)::text[])
                    AS d(name, interval_ms, origin, credential)
                ON CONFLICT (feed) DO UPDATE
                SET interval_ms = EXCLUDED.interval_ms, origin = EXCLUDED.origin, credential = EXCLUDED.credential
                """, logger: logger)
        }
    }

    /// Takes up to `limit` due feeds, earliest due first, that no live lease holds and no shared
    /// rate-limit pause of their origin and credential holds back: each is leased to this worker
    /// alone (`FOR UPDATE SKIP LOCKED`: a feed another worker is taking meanwhile is skipped, not
    /// waited for) until now + the lease timeout. With `among`, only those feeds (the ones this
    /// worker's configuration declares).
    ///
    /// Feeds due at the same moment (every feed after a refresh) are taken in the order of a hash of
    /// their names, not by name: names often group feeds by host (`acme-repos`, `acme-members`…),
    /// and a batch of one host's feeds is held to that host's share of `max_connections_per_host`
    /// while the other hosts wait (W6: 2,000 feeds on 10 hosts, each batch of 64 on one host).
    ///
    /// `among` is tested as a filter, never through the primary key's index (`COLLATE "C"`: the
    /// index's collation is the column's; for equality the two agree byte for byte). Through the
    /// index, each claim sorted the list and probed the index once per name (2,000 names in W6),
    /// and did so again for every candidate another worker had just taken (the lock's recheck):
    /// a fifth of PostgreSQL's CPU in a W6 cycle. As a filter, PostgreSQL hashes the list once.
    public func leaseDueFeeds(limit: Int, among: [String]? = nil) async throws(CoordinationError) -> [FeedLease] {
        guard limit > 0 else { return [] }
        let restricted = among != nil
        let names = among ?? []
        return try await attempt("leasing due feeds") {
            let rows = try await client.query(
                """
                WITH due AS (
                    SELECT f.feed, f.lease_owner AS previous_owner FROM feed_leases AS f
                    WHERE f.next_due_at <= clock_timestamp()
                      AND (f.lease_owner IS NULL OR f.lease_expires_at <= clock_timestamp())
                      AND (NOT \(restricted) OR f.feed COLLATE "C" = ANY(\(names)::text[]))
                      AND NOT EXISTS (
                          SELECT 1 FROM rate_limit_pauses AS p
                          WHERE p.origin = f.origin AND p.credential = f.credential AND p.until > clock_timestamp())
                    ORDER BY f.next_due_at, md5(f.feed)
                    LIMIT \(Int64(limit))
                    FOR UPDATE OF f SKIP LOCKED)
                UPDATE feed_leases AS f
                SET lease_owner = \(id.rawValue),
                    lease_expires_at = clock_timestamp() + \(settings.leaseTimeout.milliseconds)::bigint * interval '1 millisecond',
                    lease_generation = f.lease_generation + 1,
                    leased_at = clock_timestamp()
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
        try await complete([(lease, outcome)]).contains(lease.feed)
    }

    /// Ends every lease of `completions` in one statement, each as ``complete(_:outcome:)`` ends
    /// one (a worker ends a whole batch's leases when the batch's pull returns). Returns the feeds
    /// whose lease was ended; a lease lost to another worker is left alone and not among them.
    public func complete(_ completions: [(lease: FeedLease, outcome: PullOutcome)]) async throws(CoordinationError) -> Set<String> {
        guard !completions.isEmpty else { return [] }
        var feeds: [String] = [], generations: [Int64] = [], succeeded: [Bool] = [], jitter: [Double] = []
        var messages: [String] = [], hasMessage: [Bool] = [], notBefore: [Double] = [], hasNotBefore: [Bool] = []
        for (lease, outcome) in completions {
            feeds.append(lease.feed)
            generations.append(lease.generation)
            jitter.append(settings.jitter == 0 ? 1 : Double.random(in: (1 - settings.jitter)...(1 + settings.jitter)))
            var message: String?
            var until: Date?
            if case .failed(let text, let reset) = outcome { (message, until) = (text, reset) }
            succeeded.append(outcome == .succeeded)
            messages.append(message ?? "")
            hasMessage.append(message != nil)
            notBefore.append(until?.timeIntervalSince1970 ?? 0)
            hasNotBefore.append(until != nil)
        }
        let cap = Int64(settings.maxBackoffFactor)
        return try await attempt("completing the leases of \(completions.count == 1 ? feeds[0] : "\(completions.count) feeds")") {
            // Arrays of PostgreSQL cannot carry Swift optionals here: a flag array says which
            // message and reset time are absent.
            let rows = try await client.query(
                """
                UPDATE feed_leases AS l
                SET lease_owner = NULL, lease_expires_at = NULL,
                    failures = CASE WHEN c.succeeded THEN 0 ELSE l.failures + 1 END,
                    last_pulled_at = clock_timestamp(),
                    last_error = CASE WHEN c.has_message THEN c.message END,
                    next_due_at = CASE WHEN l.refresh_requested_at >= l.leased_at
                        THEN greatest(clock_timestamp(), CASE WHEN c.has_not_before THEN to_timestamp(c.not_before) ELSE '-infinity'::timestamptz END)
                        ELSE greatest(
                        clock_timestamp() + interval '1 millisecond' * (CASE WHEN c.succeeded
                            THEN l.interval_ms * c.jitter
                            ELSE least(l.interval_ms * least(\(cap)::bigint, power(2, least(l.failures + 1, 62))::bigint),
                                       greatest(l.interval_ms, 86400000))::double precision END),
                        CASE WHEN c.has_not_before THEN to_timestamp(c.not_before) ELSE '-infinity'::timestamptz END) END
                FROM unnest(\(feeds)::text[], \(generations)::bigint[], \(succeeded)::boolean[], \(jitter)::double precision[],
                            \(messages)::text[], \(hasMessage)::boolean[], \(notBefore)::double precision[], \(hasNotBefore)::boolean[])
                    AS c(feed, generation, succeeded, jitter, message, has_message, not_before, has_not_before)
                WHERE l.feed = c.feed AND l.lease_owner = \(id.rawValue) AND l.lease_generation = c.generation
                RETURNING l.feed
                """, logger: logger)
            var completed: Set<String> = []
            for try await feed in rows.decode(String.self) { completed.insert(feed) }
            return completed
        }
    }

    /// Makes `feeds` due now (a refresh asked for through one worker reaches whichever takes
    /// them); a feed being pulled is due again as soon as that pull completes. Returns the time of
    /// the request on the database's clock (see ``FeedScheduleStatus/answered(since:)``). Every
    /// worker in ``listenForDueFeeds(_:)`` is woken when it commits.
    @discardableResult
    public func makeDue(_ feeds: [String]) async throws(CoordinationError) -> Date {
        try await attempt("making \(feeds.count) feeds due") {
            let rows = try await client.query(
                """
                WITH now AS (SELECT clock_timestamp() AS at),
                     due AS (UPDATE feed_leases SET next_due_at = (SELECT at FROM now), refresh_requested_at = (SELECT at FROM now)
                             WHERE feed = ANY(\(feeds)::text[]) RETURNING feed)
                SELECT (SELECT at FROM now), (SELECT count(*) FROM due)
                FROM (SELECT pg_notify(\(Self.dueChannel), '')) AS notified
                """, logger: logger)
            var at = Date()
            for try await (time, _) in rows.decode((Date, Int64).self) { at = time }
            return at
        }
    }
}

#endif
