// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedCore
public import FeedStorage
import Foundation
import PostgresNIO

extension PostgresFeedStore {
    /// Commits one feed's pull in one transaction; the semantics of SQLite's `FeedStore.commitPull(_:)`
    /// (upsert by (feed, id), unchanged items only seen again, missing items marked, never deleted).
    @discardableResult
    public func commitPull(_ pull: FeedPull) throws -> CommitSummary {
        let now = self.now().timeIntervalSince1970
        let prepared = PreparedItem.prepare(pull.items, source: pull.source, keepRaw: keepRaw)
        let keepRaw = self.keepRaw
        let host = Self.hostName
        let timeout = claimTimeout
        let summary = try transaction("commit feed '\(pull.feed)'") { db in
            try await Self.ensureFeed(pull.feed, source: pull.source, config: nil, in: db)
            try await Self.lockFeed(pull.feed, in: db)
            if try await !Self.isClaimedByLiveProcess(pull.feed, host: host, timeout: timeout, now: now, in: db) {
                try await Self.discardStaged(feed: pull.feed, in: db)
            }
            let number = try await Self.nextPullNumber(of: pull.feed, in: db)
            var summary = try await Self.writeItems(
                prepared, feed: pull.feed, pull: number, now: now, staged: false, keepRaw: keepRaw, in: db)
            for entry in pull.cacheEntries {
                try await Self.storeCacheEntry(entry, feed: pull.feed, now: now, staged: false, in: db)
            }
            summary.missing = try await Self.finish(pull, pull: number, startedPull: number, now: now, in: db).missing
            return summary
        }
        refreshStatistics(afterRevealing: summary.inserted)
        return summary
    }

    /// Items a commit makes visible past which the planner's statistics of `item` are refreshed.
    static let statisticsRefreshThreshold = 10_000

    /// Refreshes the planner's statistics of `item` (`ANALYZE`, a sample of the table: a fraction of
    /// a second at a million items) after a commit made `count` items visible, when that is many:
    /// until autovacuum gets to it (a minute or more), a table filled by a first pull is planned as
    /// if it were empty, and the reads that follow it — the counts, the de-duplication lookups —
    /// would scan it whole. A failure only leaves that to autovacuum.
    func refreshStatistics(afterRevealing count: Int) {
        guard count >= Self.statisticsRefreshThreshold else { return }
        _ = try? statement("refresh the statistics of the item table") { db in try await db.exec("ANALYZE item") }
    }

    /// Inserts or updates the feed's row; a non-nil `config` becomes its owning configuration.
    static func ensureFeed(_ feed: String, source: String, config: String?, in db: PostgresConnection) async throws {
        try await db.exec(
            """
            INSERT INTO feed (name, source, config) VALUES (\(feed), \(source), \(config))
            ON CONFLICT (name) DO UPDATE SET source = excluded.source, config = COALESCE(excluded.config, feed.config)
            """)
    }

    /// Locks the feed's row until the transaction ends: two writers of one feed take turns (SQLite's
    /// single writer gives the same for free).
    ///
    /// The same statement steers the transaction's plans to the indexes (`enable_seqscan` and
    /// `enable_bitmapscan` off, for this transaction only): every statement a write runs finds its
    /// rows by key, but while a first pull fills an empty table its statistics say it is nearly
    /// empty (ANALYZE has not run yet), and the planner then scanned the whole table, or the whole
    /// feed, for each page's lookups and shared marks — a first pull of 50,000 items spent most of
    /// its time there.
    static func lockFeed(_ feed: String, in db: PostgresConnection) async throws {
        try await db.exec("SELECT \(unescaped: indexPlans) FROM feed WHERE name = \(feed) FOR UPDATE")
    }

    /// ``lockFeed(_:in:)``, and in the same statement whether `owner` on `host` still holds the
    /// feed's claim (one round trip for each page a pull writes).
    static func lockFeed(_ feed: String, in db: PostgresConnection, heldBy owner: PullOwner, host: String) async throws
        -> Bool
    {
        try await db.row(
            """
            SELECT \(unescaped: indexPlans), EXISTS (SELECT 1 FROM pull_checkpoint
                WHERE feed = \(feed) AND owner = \(owner.description) AND owner_host = \(host)) AS held
            FROM feed WHERE name = \(feed) FOR UPDATE
            """)?.get("held", Bool.self) ?? false
    }

    /// The select-list items that turn sequential and bitmap scans off for the transaction.
    private static let indexPlans = "set_config('enable_seqscan', 'off', TRUE), set_config('enable_bitmapscan', 'off', TRUE)"

    /// The number the feed's next committed pull gets.
    static func nextPullNumber(of feed: String, in db: PostgresConnection) async throws -> Int64 {
        (try await db.row("SELECT pulls FROM feed WHERE name = \(feed)")?.get("pulls", Int64.self) ?? 0) + 1
    }

    /// Ends pull `number` of a feed: records it, reveals what it staged and marks missing items;
    /// returns the number of missing items and of the staged items it made visible. See SQLite's
    /// `FeedStore.finish`.
    static func finish(_ pull: FeedPull, pull number: Int64, startedPull: Int64, now: Double, in db: PostgresConnection)
        async throws -> (missing: Int, revealed: Int)
    {
        let succeeded = pull.error == nil
        let settled = succeeded && !pull.limited
        let pageCount = settled ? pull.pageCount.map(Int64.init) : nil
        try await db.exec(
            """
            UPDATE feed SET pulls = pulls + 1, last_attempt_at = \(now), last_error = \(pull.error),
                last_pages = \(Int64(pull.stats.pages)), last_requests = \(Int64(pull.stats.requests)),
                last_items = \(Int64(pull.itemCount)),
                last_success_at = CASE WHEN \(settled) THEN \(now) ELSE last_success_at END,
                page_count = COALESCE(\(pageCount), page_count)
            WHERE name = \(pull.feed)
            """)
        let revealed =
            try await db.row(
                """
                WITH revealed AS (UPDATE item SET staged = FALSE WHERE feed = \(pull.feed) AND staged RETURNING 1)
                UPDATE feed SET visible_items = visible_items + (SELECT COUNT(*) FROM revealed) WHERE name = \(pull.feed)
                RETURNING (SELECT COUNT(*) FROM revealed) AS revealed
                """)?.get("revealed", Int64.self) ?? 0
        // Changed items take their new versions: a dated item sorts by its (maybe new) date, an
        // undated one keeps the place it was given unless it was dated before (SQLite's applyUpdate).
        let updatedKeys = try await db.rows(
            """
            UPDATE item SET title = su.title, summary = su.summary, url = su.url, author_name = su.author_name,
                author_url = su.author_url, author_avatar = su.author_avatar, image_url = su.image_url,
                published = su.published, updated = su.updated, raw = su.raw, search = su.search, dedup_key = su.dedup_key,
                sort_key = CASE
                    WHEN COALESCE(su.updated, su.published) IS NOT NULL THEN COALESCE(su.updated, su.published)
                    WHEN item.published IS NOT NULL OR item.updated IS NOT NULL THEN NULL
                    ELSE item.sort_key END,
                last_seen_at = \(now), missing_since = NULL, seen_pull = \(number), content_hash = su.content_hash
            FROM staged_update su
            WHERE su.feed = \(pull.feed) AND item.feed = su.feed AND item.id = su.id
            RETURNING item.dedup_key
            """
        ).map { try $0.decode(String.self) }
        try await markShared(updatedKeys, in: db)
        try await db.exec("DELETE FROM staged_update WHERE feed = \(pull.feed)")
        try await db.exec(
            """
            INSERT INTO http_cache (url, feed, etag, last_modified, status, headers, body, page, stored_at)
            SELECT url, feed, etag, last_modified, status, headers, body, page, stored_at
            FROM staged_cache WHERE feed = \(pull.feed)
            ON CONFLICT (url) DO UPDATE SET feed = excluded.feed, etag = excluded.etag,
                last_modified = excluded.last_modified, status = excluded.status, headers = excluded.headers,
                body = excluded.body, page = excluded.page, stored_at = excluded.stored_at
            """)
        try await db.exec("DELETE FROM staged_cache WHERE feed = \(pull.feed)")
        // The change number moves last: its row lock is held only from there to the COMMIT.
        // Missing items are rows an earlier pull saw and this one did not: the feed's first pull
        // (number 1) has none to look for, and skips two walks of every row it wrote.
        guard settled && pull.complete && startedPull > 1 else {
            try await PostgresSchema.noteChange(in: db)
            return (0, Int(revealed))
        }
        try await db.exec(
            """
            UPDATE item SET missing_since = \(now)
            WHERE feed = \(pull.feed) AND seen_pull < \(startedPull) AND missing_since IS NULL
            """)
        let missing = Int(
            try await db.row("SELECT COUNT(*) AS n FROM item WHERE feed = \(pull.feed) AND seen_pull < \(startedPull)")?
                .get("n", Int64.self) ?? 0)
        try await PostgresSchema.noteChange(in: db)
        return (missing, Int(revealed))
    }

    /// Writes a remembered response (staged: until the pull ends).
    static func storeCacheEntry(_ entry: HTTPCacheEntry, feed: String, now: Double, staged: Bool, in db: PostgresConnection)
        async throws
    {
        var binds = PostgresBindings()
        let sql = try PageBookkeeping.cacheUpsert(
            entry, feed: feed, now: now, into: staged ? "staged_cache" : "http_cache", binds: &binds)
        try await db.exec(PostgresQuery(unsafeSQL: sql, binds: binds))
    }

    /// Gives every unplaced undated item of the feeds in `feedOrder` its fixed key (``UndatedPlacement``).
    @discardableResult
    public func placeUndatedItems(feedOrder: [String]) throws -> Int {
        try transaction("place undated items") { db in
            let pending =
                try await db.row(
                    """
                    SELECT EXISTS (SELECT 1 FROM item WHERE sort_key IS NULL AND published IS NULL AND updated IS NULL
                        AND NOT staged) AS pending
                    """)?.get("pending", Bool.self) ?? false
            guard pending else { return 0 }
            // One placement at a time: two processes placing at once would anchor on each other's keys.
            try await db.exec("SELECT pg_advisory_xact_lock(\(PostgresSchema.lockKey + 1))")
            var feeds: [(feed: String, rows: [UndatedPlacement.Row])] = []
            var listed = Set<String>()
            for feed in feedOrder where listed.insert(feed).inserted {
                let rows = try await db.rows(
                    """
                    SELECT id, dedup_key, sort_key, (published IS NOT NULL OR updated IS NOT NULL) AS dated
                    FROM item WHERE feed = \(feed) AND NOT staged ORDER BY feed_position, id
                    """
                ).map { raw in
                    let row = raw.makeRandomAccess()
                    return UndatedPlacement.Row(
                        id: try row.get("id"), dedupKey: try row.get("dedup_key"), sortKey: try row.get("sort_key"),
                        dated: try row.get("dated"))
                }
                feeds.append((feed, rows))
            }
            let placements = UndatedPlacement.placements(feeds)
            guard !placements.isEmpty else { return 0 }
            try await db.exec(
                """
                UPDATE item SET sort_key = u.sort_key
                FROM unnest(\(placements.map(\.feed))::text[], \(placements.map(\.id))::text[],
                    \(placements.map(\.sortKey))::float8[]) AS u(feed, id, sort_key)
                WHERE item.feed = u.feed AND item.id = u.id
                """)
            try await PostgresSchema.noteChange(in: db)
            return placements.count
        }
    }
}

/// How a ``FeedItem`` is read back from an `item` or `staged_update` row.
enum PostgresItemColumns {
    static func item(from row: PostgresRandomAccessRow) throws -> FeedItem {
        let author: FeedAuthor? =
            if let name = try row.get("author_name", String?.self) {
                FeedAuthor(
                    name: name, url: try row.get("author_url", String?.self),
                    avatarURL: try row.get("author_avatar", String?.self))
            } else {
                nil
            }
        return FeedItem(
            id: try row.get("id"), title: try row.get("title"), summary: try row.get("summary"), url: try row.get("url"),
            author: author, imageURL: try row.get("image_url"),
            published: try row.get("published", Double?.self).map(Date.init(timeIntervalSince1970:)),
            updated: try row.get("updated", Double?.self).map(Date.init(timeIntervalSince1970:)),
            raw: row.contains("raw") ? try row.get("raw", Data?.self) : nil)
    }
}

#endif
