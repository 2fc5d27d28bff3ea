public import FeedCore
import Foundation
import GRDB

extension FeedStore {
    /// Commits one feed's pull in one write transaction: a crash leaves the feed before or fully after it.
    ///
    /// Items are upserted by `(feed, id)`: a new item is inserted (`first_seen_at` = `last_seen_at` =
    /// now); an unchanged one (same content hash of its fields and raw JSON) only gets `last_seen_at`
    /// moved; a changed one is updated in place, keeping `first_seen_at` and its row. Nothing is ever
    /// deleted: when a complete pull succeeds, stored items it no longer returned are kept and marked
    /// missing. A failed pull (`error` set) records the error and the attempt, keeps every stored item
    /// and still upserts the items it passes. The cache entries become visible with the items.
    ///
    /// New undated items are listed last until ``placeUndatedItems(feedOrder:)`` gives them their
    /// place; ``commit(_:feedOrder:)`` does both.
    @discardableResult
    public func commitPull(
        feed: String, source: String, items: [FeedItem], complete: Bool, stats: PullStats, error: String?,
        cacheEntries: [HTTPCacheEntry]
    ) throws -> CommitSummary {
        try commitPull(
            FeedPull(
                feed: feed, source: source, items: items, complete: complete, stats: stats, error: error,
                cacheEntries: cacheEntries))
    }

    /// Commits `pull`; see ``commitPull(feed:source:items:complete:stats:error:cacheEntries:)``.
    @discardableResult
    public func commitPull(_ pull: FeedPull) throws -> CommitSummary {
        let now = self.now().timeIntervalSince1970
        return try writing("commit feed '\(pull.feed)'") { db in
            let summary = try Self.commit(pull, now: now, in: db)
            try beforeCommit?(pull.feed)
            return summary
        }
    }

    /// Records a pull that fetched nothing: the attempt, its error and counters; items stay as they are.
    public func recordFailure(feed: String, source: String, error: String, stats: PullStats) throws {
        try commitPull(FeedPull(feed: feed, source: source, items: [], complete: false, stats: stats, error: error))
    }

    /// Commits every pull (one transaction each, in order), then places new undated items
    /// relative to the whole stream of `feedOrder` (the feeds' declaration order).
    ///
    /// Use this after a pull of several feeds, so undated items are spread through the dated items of
    /// every feed, exactly as ``UnifiedStream/merge(_:)`` spreads them.
    @discardableResult
    public func commit(_ pulls: [FeedPull], feedOrder: [String]) throws -> [CommitSummary] {
        var summaries: [CommitSummary] = []
        for pull in pulls { summaries.append(try commitPull(pull)) }
        try placeUndatedItems(feedOrder: feedOrder)
        return summaries
    }

    static func commit(_ pull: FeedPull, now: Double, in db: Database) throws -> CommitSummary {
        let succeeded = pull.error == nil
        try db.execute(
            sql: """
                INSERT INTO feed (name, source) VALUES (?, ?)
                ON CONFLICT (name) DO UPDATE SET source = excluded.source
                """,
            arguments: [pull.feed, pull.source])
        try db.execute(
            sql: """
                UPDATE feed SET pulls = pulls + 1, last_attempt_at = :now, last_error = :error,
                    last_pages = :pages, last_requests = :requests, last_items = :items,
                    last_success_at = CASE WHEN :succeeded THEN :now ELSE last_success_at END,
                    page_count = COALESCE(:pageCount, page_count)
                WHERE name = :feed
                """,
            arguments: [
                "now": now, "error": pull.error, "pages": pull.stats.pages, "requests": pull.stats.requests,
                "items": pull.items.count, "succeeded": succeeded && !pull.limited, "feed": pull.feed,
                "pageCount": succeeded && !pull.limited ? pull.pageCount : nil,
            ])
        let pullNumber = try Int64.fetchOne(db, sql: "SELECT pulls FROM feed WHERE name = ?", arguments: [pull.feed]) ?? 0
        var nextPosition =
            try Int64.fetchOne(
                db, sql: "SELECT MAX(feed_position) + 1 FROM item WHERE feed = ?", arguments: [pull.feed]) ?? 0

        var summary = CommitSummary()
        var seen = Set<String>()
        let assignments = ItemColumns.names.map { "\($0) = ?" }.joined(separator: ", ")
        let insertColumns = (ItemColumns.names + [
            "feed", "id", "dedup_key", "sort_key", "feed_position", "first_seen_at", "last_seen_at", "seen_pull",
            "content_hash",
        ])
        let insertSQL = "INSERT INTO item (\(insertColumns.joined(separator: ", "))) VALUES (\(insertColumns.map { _ in "?" }.joined(separator: ", ")))"
        let updateSQL = """
            UPDATE item SET \(assignments), dedup_key = ?, sort_key = ?, last_seen_at = ?, missing_since = NULL,
                seen_pull = ?, content_hash = ?
            WHERE feed = ? AND id = ?
            """
        for item in pull.items {
            // The first occurrence wins when pages overlap and repeat an item.
            guard seen.insert(item.id).inserted else { continue }
            let hash = item.contentDigest
            let dedupKey = UnifiedStream.dedupKey(item, source: pull.source)
            let existing = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT content_hash, sort_key, (published IS NOT NULL OR updated IS NOT NULL) AS dated
                        FROM item WHERE feed = ? AND id = ?
                        """),
                arguments: [pull.feed, item.id])
            guard let existing else {
                let values: [(any DatabaseValueConvertible)?] =
                    ItemColumns.values(item) + [
                        pull.feed, item.id, dedupKey, ItemColumns.datedSortKey(item), nextPosition, now, now,
                        pullNumber, hash,
                    ]
                try db.cachedStatement(sql: insertSQL).execute(arguments: StatementArguments(values))
                nextPosition += 1
                summary.inserted += 1
                continue
            }
            if try existing.decode(Int64.self, forColumn: "content_hash") == hash {
                try db.cachedStatement(
                    sql: """
                        UPDATE item SET last_seen_at = ?, missing_since = NULL, seen_pull = ?
                        WHERE feed = ? AND id = ?
                        """
                ).execute(arguments: [now, pullNumber, pull.feed, item.id])
                summary.unchanged += 1
                continue
            }
            // Changed in place. A dated item sorts by its (maybe new) date; an undated one keeps the
            // place it was given, unless it was dated before (then it waits to be placed again).
            let wasDated = try existing.decode(Bool.self, forColumn: "dated")
            let placedKey = try existing.decode(Double?.self, forColumn: "sort_key")
            let sortKey = ItemColumns.datedSortKey(item) ?? (wasDated ? nil : placedKey)
            let values: [(any DatabaseValueConvertible)?] =
                ItemColumns.values(item) + [dedupKey, sortKey, now, pullNumber, hash, pull.feed, item.id]
            try db.cachedStatement(sql: updateSQL).execute(arguments: StatementArguments(values))
            summary.updated += 1
        }

        if succeeded && pull.complete {
            try db.execute(
                sql: "UPDATE item SET missing_since = ? WHERE feed = ? AND seen_pull < ? AND missing_since IS NULL",
                arguments: [now, pull.feed, pullNumber])
            summary.missing =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM item WHERE feed = ? AND seen_pull < ?",
                    arguments: [pull.feed, pullNumber]) ?? 0
        }

        for entry in pull.cacheEntries {
            try storeCacheEntry(entry, feed: pull.feed, now: now, in: db)
        }
        return summary
    }
}
