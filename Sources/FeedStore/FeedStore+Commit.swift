import FeedCore
import FeedStorage
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
    ///
    /// This is the one-shot form: every item is in `pull`. A pull written page by page goes through
    /// ``beginPull(feed:source:fingerprint:restart:)``, ``stagePage(_:ticket:)`` and
    /// ``finishPull(_:ticket:keepResume:)`` instead; a one-shot commit discards whatever such a pull
    /// of the same feed left staged.
    @discardableResult
    public func commitPull(_ pull: FeedPull) throws -> CommitSummary {
        let now = self.now().timeIntervalSince1970
        let prepared = Self.prepare(pull.items, source: pull.source, keepRaw: keepRaw)
        defer { checkpointer.wrote(bytes: Self.approximateSize(of: pull.items)) }
        return try writing("commit feed '\(pull.feed)'") { db in
            try Self.ensureFeed(pull.feed, source: pull.source, in: db)
            if try !Self.isClaimedByLiveProcess(pull.feed, in: db) { try Self.discardStaged(feed: pull.feed, in: db) }
            let number = try Self.nextPullNumber(of: pull.feed, in: db)
            var summary = try Self.writeItems(
                prepared, feed: pull.feed, source: pull.source, pull: number, now: now, staged: false,
                keepRaw: keepRaw, in: db)
            for entry in pull.cacheEntries {
                try Self.storeCacheEntry(entry, feed: pull.feed, now: now, staged: false, in: db)
            }
            summary.missing = try Self.finish(pull, pull: number, startedPull: number, now: now, in: db)
            try beforeCommit?(pull.feed)
            return summary
        }
    }

    /// Inserts or updates the feed's row; a non-nil `config` becomes its owning configuration.
    static func ensureFeed(_ feed: String, source: String, config: String? = nil, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO feed (name, source, config) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET source = excluded.source,
                    config = COALESCE(excluded.config, feed.config)
                """,
            arguments: [feed, source, config])
    }

    /// The number the feed's next committed pull gets (`pulls` counts commits).
    static func nextPullNumber(of feed: String, in db: Database) throws -> Int64 {
        (try Int64.fetchOne(db, sql: "SELECT pulls FROM feed WHERE name = ?", arguments: [feed]) ?? 0) + 1
    }

    /// Upserts `items` as pull number `pull` saw them. With `staged`, new items are inserted invisible
    /// (`staged = 1`) and changed ones wait in `staged_update`, until ``finish(_:pull:startedPull:now:in:)``;
    /// otherwise both are written visible at once. An item this pull already saw (pages that overlap,
    /// or pages staged before a crash) is skipped: its first occurrence wins.
    /// An item with the values computed from it before the write transaction (outside the lock).
    typealias PreparedItem = FeedStorage.PreparedItem

    /// Digests and dedup keys of `items`, before taking the write lock; see ``PreparedItem/prepare(_:source:keepRaw:)``.
    static func prepare(_ items: [FeedItem], source: String, keepRaw: Bool = true) -> [PreparedItem] {
        PreparedItem.prepare(items, source: source, keepRaw: keepRaw)
    }

    /// The mapped fields of the stored row of `feed`/`id`: how an item rebuilt from a row stored
    /// without its JSON (a `304` page) is recognised as unchanged, although its digest lacks the
    /// JSON the stored digest was taken with (see ``ItemWrite/of(_:stored:pull:keepRaw:storedFields:)``).
    static func storedFields(of id: String, feed: String, in db: Database) throws -> FeedItem? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT id, \(ItemColumns.names.joined(separator: ", ")) FROM item WHERE feed = ? AND id = ?"),
                arguments: [feed, id])
        else { return nil }
        return try ItemColumns.item(from: row)
    }

    static func writeItems(
        _ items: [PreparedItem], feed: String, source: String, pull: Int64, now: Double, staged: Bool,
        keepRaw: Bool = true, in db: Database
    ) throws -> CommitSummary {
        var summary = CommitSummary()
        guard !items.isEmpty else { return summary }
        var nextPosition =
            try Int64.fetchOne(db, sql: "SELECT MAX(feed_position) + 1 FROM item WHERE feed = ?", arguments: [feed]) ?? 0
        let insertColumns =
            ItemColumns.names + [
                "feed", "id", "dedup_key", "sort_key", "feed_position", "first_seen_at", "last_seen_at", "seen_pull",
                "content_hash", "staged", "shared",
            ]
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO item (\(insertColumns.joined(separator: ", ")), doc)
                VALUES (\(insertColumns.map { _ in "?" }.joined(separator: ", ")), (SELECT IFNULL(MAX(doc), 0) + 1 FROM item))
                """)
        let lookup = try db.cachedStatement(
            sql: """
                SELECT content_hash, sort_key, (published IS NOT NULL OR updated IS NOT NULL) AS dated, seen_pull,
                    (raw IS NULL) AS raw_missing
                FROM item WHERE feed = ? AND id = ?
                """)
        let seen = try db.cachedStatement(
            sql: "UPDATE item SET last_seen_at = ?, missing_since = NULL, seen_pull = ? WHERE feed = ? AND id = ?")
        let carried = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM item WHERE dedup_key = ?)")
        for prepared in items {
            let item = prepared.item
            let hash = prepared.hash
            let dedupKey = prepared.dedupKey
            let stored = try Row.fetchOne(lookup, arguments: [feed, item.id]).map { row in
                StoredItemVersion(
                    hash: try row.decode(Int64.self, forColumn: "content_hash"),
                    sortKey: try row.decode(Double?.self, forColumn: "sort_key"),
                    dated: try row.decode(Bool.self, forColumn: "dated"),
                    seenPull: try row.decode(Int64.self, forColumn: "seen_pull"),
                    rawMissing: try row.decode(Bool.self, forColumn: "raw_missing"))
            }
            let sortKey: Double?
            switch try ItemWrite.of(prepared, stored: stored, pull: pull, keepRaw: keepRaw, storedFields: {
                try storedFields(of: item.id, feed: feed, in: db)
            }) {
            case .skip: continue
            case .unchanged:
                try seen.execute(arguments: [now, pull, feed, item.id])
                summary.unchanged += 1
                continue
            case .insert:
                // Another row already carries the dedup key: both are marked shared.
                let shared = try Bool.fetchOne(carried, arguments: [dedupKey]) ?? false
                let values: [(any DatabaseValueConvertible)?] =
                    ItemColumns.values(item) + [
                        feed, item.id, dedupKey, ItemColumns.datedSortKey(item),
                        nextPosition, now, now, pull, hash, staged ? 1 : 0, shared ? 1 : 0,
                    ]
                try insert.execute(arguments: StatementArguments(values))
                if shared { try markShared(dedupKey, in: db) }
                nextPosition += 1
                summary.inserted += 1
                continue
            case .update(let key): sortKey = key
            }
            summary.updated += 1
            if staged {
                // The new version waits; the stored one stays visible until the pull ends.
                let values: [(any DatabaseValueConvertible)?] =
                    [feed, item.id] + ItemColumns.values(item) + [dedupKey, hash]
                try db.cachedStatement(
                    sql: """
                        INSERT OR REPLACE INTO staged_update (feed, id, \(ItemColumns.names.joined(separator: ", ")),
                            dedup_key, content_hash)
                        VALUES (\(values.map { _ in "?" }.joined(separator: ", ")))
                        """
                ).execute(arguments: StatementArguments(values))
                try db.cachedStatement(sql: "UPDATE item SET seen_pull = ? WHERE feed = ? AND id = ?")
                    .execute(arguments: [pull, feed, item.id])
                continue
            }
            try applyUpdate(item, dedupKey: dedupKey, hash: hash, sortKey: sortKey, feed: feed, pull: pull, now: now, in: db)
        }
        if !staged && summary.inserted > 0 {
            try db.execute(
                sql: "UPDATE feed SET visible_items = visible_items + ? WHERE name = ?", arguments: [summary.inserted, feed])
        }
        return summary
    }

    /// Marks every row carrying `dedupKey` as shared, when more than one does (see schema `v5`).
    static func markShared(_ dedupKey: String, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE item SET shared = 1
                WHERE dedup_key = ?1 AND shared = 0 AND (SELECT COUNT(*) FROM item WHERE dedup_key = ?1) > 1
                """
        ).execute(arguments: [dedupKey])
    }

    /// Updates a stored item in place, with its new sort key (``StoredItemVersion/sortKey(after:)``).
    static func applyUpdate(
        _ item: FeedItem, dedupKey: String, hash: Int64, sortKey: Double?, feed: String, pull: Int64, now: Double,
        in db: Database
    ) throws {
        let assignments = ItemColumns.names.map { "\($0) = ?" }.joined(separator: ", ")
        let values: [(any DatabaseValueConvertible)?] =
            ItemColumns.values(item) + [dedupKey, sortKey, now, pull, hash, feed, item.id]
        try db.cachedStatement(
            sql: """
                UPDATE item SET \(assignments), dedup_key = ?, sort_key = ?, last_seen_at = ?, missing_since = NULL,
                    seen_pull = ?, content_hash = ?
                WHERE feed = ? AND id = ?
                """
        ).execute(arguments: StatementArguments(values))
        // A changed URL may give the item a dedup key other rows carry.
        try markShared(dedupKey, in: db)
    }

    /// Ends pull number `pull` of a feed: records the attempt on the feed row, makes its staged
    /// items, updates and validators visible, and (complete and successful) marks the stored items
    /// that neither it nor the interrupted pulls it continued (since `startedPull`) saw as missing.
    /// Returns the number of missing items.
    static func finish(_ pull: FeedPull, pull number: Int64, startedPull: Int64, now: Double, in db: Database) throws
        -> Int
    {
        let succeeded = pull.error == nil
        // A limited pull (`pull --limit`) is not a successful pull of the feed: see ``FeedPull/limited``.
        let settled = succeeded && !pull.limited
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
                "items": pull.itemCount, "succeeded": settled, "feed": pull.feed,
                "pageCount": settled ? pull.pageCount : nil,
            ])
        try Schema.noteChange(in: db)
        try db.execute(sql: "UPDATE item SET staged = 0 WHERE feed = ? AND staged = 1", arguments: [pull.feed])
        let revealed = db.changesCount
        if revealed > 0 {
            try db.execute(
                sql: "UPDATE feed SET visible_items = visible_items + ? WHERE name = ?", arguments: [revealed, pull.feed])
        }
        let updates = try Row.fetchAll(db, sql: "SELECT * FROM staged_update WHERE feed = ?", arguments: [pull.feed])
        for row in updates {
            let item = try ItemColumns.item(from: row)
            guard
                let existing = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT sort_key, (published IS NOT NULL OR updated IS NOT NULL) AS dated FROM item
                        WHERE feed = ? AND id = ?
                        """,
                    arguments: [pull.feed, item.id])
            else { continue }
            let sortKey = StoredItemVersion.sortKey(
                of: item, wasDated: try existing.decode(Bool.self, forColumn: "dated"),
                placedKey: try existing.decode(Double?.self, forColumn: "sort_key"))
            try applyUpdate(
                item, dedupKey: try row.decode(String.self, forColumn: "dedup_key"),
                hash: try row.decode(Int64.self, forColumn: "content_hash"), sortKey: sortKey, feed: pull.feed,
                pull: number, now: now, in: db)
        }
        try db.execute(sql: "DELETE FROM staged_update WHERE feed = ?", arguments: [pull.feed])
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO http_cache (url, feed, etag, last_modified, status, headers, body, page, stored_at)
                SELECT url, feed, etag, last_modified, status, headers, body, page, stored_at
                FROM staged_cache WHERE feed = ?
                """,
            arguments: [pull.feed])
        try db.execute(sql: "DELETE FROM staged_cache WHERE feed = ?", arguments: [pull.feed])
        guard settled && pull.complete else { return 0 }
        try db.execute(
            sql: "UPDATE item SET missing_since = ? WHERE feed = ? AND seen_pull < ? AND missing_since IS NULL",
            arguments: [now, pull.feed, startedPull])
        return try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM item WHERE feed = ? AND seen_pull < ?", arguments: [pull.feed, startedPull])
            ?? 0
    }
}
