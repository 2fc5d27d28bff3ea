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
        return try transaction("commit feed '\(pull.feed)'") { db in
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
            summary.missing = try await Self.finish(pull, pull: number, startedPull: number, now: now, in: db)
            return summary
        }
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
    static func lockFeed(_ feed: String, in db: PostgresConnection) async throws {
        try await db.exec("SELECT 1 FROM feed WHERE name = \(feed) FOR UPDATE")
    }

    /// The number the feed's next committed pull gets.
    static func nextPullNumber(of feed: String, in db: PostgresConnection) async throws -> Int64 {
        (try await db.row("SELECT pulls FROM feed WHERE name = \(feed)")?.get("pulls", Int64.self) ?? 0) + 1
    }

    /// Upserts `items` as pull `pull` saw them; see SQLite's `FeedStore.writeItems`.
    static func writeItems(
        _ items: [PreparedItem], feed: String, pull: Int64, now: Double, staged: Bool, keepRaw: Bool,
        in db: PostgresConnection
    ) async throws -> CommitSummary {
        var summary = CommitSummary()
        guard !items.isEmpty else { return summary }
        var nextPosition =
            try await db.row("SELECT COALESCE(MAX(feed_position) + 1, 0) AS next FROM item WHERE feed = \(feed)")?
            .get("next", Int64.self) ?? 0
        for prepared in items {
            let item = prepared.item
            let hash = prepared.hash
            let dedupKey = prepared.dedupKey
            guard
                let existing = try await db.row(
                    """
                    SELECT content_hash, sort_key, (published IS NOT NULL OR updated IS NOT NULL) AS dated, seen_pull,
                        (raw IS NULL) AS raw_missing, title, summary, url, author_name, author_url, author_avatar,
                        image_url, published, updated, id
                    FROM item WHERE feed = \(feed) AND id = \(item.id)
                    """)
            else {
                let shared =
                    try await db.row("SELECT EXISTS (SELECT 1 FROM item WHERE dedup_key = \(dedupKey)) AS carried")?
                    .get("carried", Bool.self) ?? false
                try await db.exec(
                    """
                    INSERT INTO item (feed, id, dedup_key, title, summary, url, author_name, author_url, author_avatar,
                        image_url, published, updated, raw, sort_key, feed_position, first_seen_at, last_seen_at,
                        seen_pull, content_hash, staged, shared)
                    VALUES (\(feed), \(item.id), \(dedupKey), \(item.title), \(item.summary), \(item.url),
                        \(item.author?.name), \(item.author?.url), \(item.author?.avatarURL), \(item.imageURL),
                        \(item.published?.timeIntervalSince1970), \(item.updated?.timeIntervalSince1970), \(item.raw),
                        \(item.sortDate?.timeIntervalSince1970), \(nextPosition), \(now), \(now), \(pull), \(hash),
                        \(staged), \(shared))
                    """)
                if shared { try await markShared(dedupKey, in: db) }
                nextPosition += 1
                summary.inserted += 1
                continue
            }
            if try existing.get("seen_pull", Int64.self) == pull { continue }
            let sameContent =
                try existing.get("content_hash", Int64.self) == hash
                || (prepared.cameWithoutRaw && (try storedFields(existing) == withoutRaw(item)))
            let rawMissing = try existing.get("raw_missing", Bool.self)
            let retained = keepRaw ? !(rawMissing && item.raw != nil) : rawMissing
            if sameContent && retained {
                try await db.exec(
                    """
                    UPDATE item SET last_seen_at = \(now), missing_since = NULL, seen_pull = \(pull)
                    WHERE feed = \(feed) AND id = \(item.id)
                    """)
                summary.unchanged += 1
                continue
            }
            summary.updated += 1
            if staged {
                try await db.exec(
                    """
                    INSERT INTO staged_update (feed, id, title, summary, url, author_name, author_url, author_avatar,
                        image_url, published, updated, raw, dedup_key, content_hash)
                    VALUES (\(feed), \(item.id), \(item.title), \(item.summary), \(item.url), \(item.author?.name),
                        \(item.author?.url), \(item.author?.avatarURL), \(item.imageURL),
                        \(item.published?.timeIntervalSince1970), \(item.updated?.timeIntervalSince1970), \(item.raw),
                        \(dedupKey), \(hash))
                    ON CONFLICT (feed, id) DO UPDATE SET title = excluded.title, summary = excluded.summary,
                        url = excluded.url, author_name = excluded.author_name, author_url = excluded.author_url,
                        author_avatar = excluded.author_avatar, image_url = excluded.image_url,
                        published = excluded.published, updated = excluded.updated, raw = excluded.raw,
                        dedup_key = excluded.dedup_key, content_hash = excluded.content_hash
                    """)
                try await db.exec("UPDATE item SET seen_pull = \(pull) WHERE feed = \(feed) AND id = \(item.id)")
                continue
            }
            try await applyUpdate(
                item, dedupKey: dedupKey, hash: hash, wasDated: try existing.get("dated", Bool.self),
                placedKey: try existing.get("sort_key", Double?.self), feed: feed, pull: pull, now: now, in: db)
        }
        if !staged && summary.inserted > 0 {
            try await db.exec(
                "UPDATE feed SET visible_items = visible_items + \(Int64(summary.inserted)) WHERE name = \(feed)")
        }
        return summary
    }

    static func withoutRaw(_ item: FeedItem) -> FeedItem {
        var item = item
        item.raw = nil
        return item
    }

    /// The mapped fields of a stored row (no raw JSON).
    static func storedFields(_ row: PostgresRandomAccessRow) throws -> FeedItem {
        var item = try PostgresItemColumns.item(from: row)
        item.raw = nil
        return item
    }

    /// Marks every row carrying `dedupKey` as shared, when more than one does.
    static func markShared(_ dedupKey: String, in db: PostgresConnection) async throws {
        try await db.exec(
            """
            UPDATE item SET shared = TRUE
            WHERE dedup_key = \(dedupKey) AND NOT shared AND (SELECT COUNT(*) FROM item WHERE dedup_key = \(dedupKey)) > 1
            """)
    }

    /// Updates a stored item in place; a dated item sorts by its date, an undated one keeps its place
    /// unless it was dated before.
    static func applyUpdate(
        _ item: FeedItem, dedupKey: String, hash: Int64, wasDated: Bool, placedKey: Double?, feed: String, pull: Int64,
        now: Double, in db: PostgresConnection
    ) async throws {
        let sortKey = item.sortDate?.timeIntervalSince1970 ?? (wasDated ? nil : placedKey)
        try await db.exec(
            """
            UPDATE item SET title = \(item.title), summary = \(item.summary), url = \(item.url),
                author_name = \(item.author?.name), author_url = \(item.author?.url),
                author_avatar = \(item.author?.avatarURL), image_url = \(item.imageURL),
                published = \(item.published?.timeIntervalSince1970), updated = \(item.updated?.timeIntervalSince1970),
                raw = \(item.raw), dedup_key = \(dedupKey), sort_key = \(sortKey), last_seen_at = \(now),
                missing_since = NULL, seen_pull = \(pull), content_hash = \(hash)
            WHERE feed = \(feed) AND id = \(item.id)
            """)
        try await markShared(dedupKey, in: db)
    }

    /// Ends pull `number` of a feed: records it, reveals what it staged and marks missing items;
    /// returns the number of missing items. See SQLite's `FeedStore.finish`.
    static func finish(_ pull: FeedPull, pull number: Int64, startedPull: Int64, now: Double, in db: PostgresConnection)
        async throws -> Int
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
        let revealed = try await db.rows(
            "UPDATE item SET staged = FALSE WHERE feed = \(pull.feed) AND staged RETURNING 1"
        ).count
        if revealed > 0 {
            try await db.exec(
                "UPDATE feed SET visible_items = visible_items + \(Int64(revealed)) WHERE name = \(pull.feed)")
        }
        let updates = try await db.rows("SELECT * FROM staged_update WHERE feed = \(pull.feed)")
        for update in updates.map({ $0.makeRandomAccess() }) {
            let item = try PostgresItemColumns.item(from: update)
            guard
                let existing = try await db.row(
                    """
                    SELECT sort_key, (published IS NOT NULL OR updated IS NOT NULL) AS dated FROM item
                    WHERE feed = \(pull.feed) AND id = \(item.id)
                    """)
            else { continue }
            try await applyUpdate(
                item, dedupKey: try update.get("dedup_key", String.self), hash: try update.get("content_hash", Int64.self),
                wasDated: try existing.get("dated", Bool.self), placedKey: try existing.get("sort_key", Double?.self),
                feed: pull.feed, pull: number, now: now, in: db)
        }
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
        guard settled && pull.complete else { return 0 }
        try await db.exec(
            """
            UPDATE item SET missing_since = \(now)
            WHERE feed = \(pull.feed) AND seen_pull < \(startedPull) AND missing_since IS NULL
            """)
        return Int(
            try await db.row("SELECT COUNT(*) AS n FROM item WHERE feed = \(pull.feed) AND seen_pull < \(startedPull)")?
                .get("n", Int64.self) ?? 0)
    }

    /// Writes a remembered response (staged: until the pull ends).
    static func storeCacheEntry(_ entry: HTTPCacheEntry, feed: String, now: Double, staged: Bool, in db: PostgresConnection)
        async throws
    {
        let page = try entry.page.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let headers = try HTTPCacheEntry.encodeHeaders(entry.headers)
        let table = staged ? "staged_cache" : "http_cache"
        try await db.exec(
            """
            INSERT INTO \(unescaped: table) (url, feed, etag, last_modified, status, headers, body, page, stored_at)
            VALUES (\(entry.url), \(feed), \(entry.etag), \(entry.lastModified), \(Int32(entry.status)), \(headers),
                \(entry.body), \(page), \(entry.storedAt?.timeIntervalSince1970 ?? now))
            ON CONFLICT (url) DO UPDATE SET feed = excluded.feed, etag = excluded.etag,
                last_modified = excluded.last_modified, status = excluded.status, headers = excluded.headers,
                body = excluded.body, page = excluded.page, stored_at = excluded.stored_at
            """)
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
            var placed = 0
            for placement in UndatedPlacement.placements(feeds) {
                try await db.exec(
                    "UPDATE item SET sort_key = \(placement.sortKey) WHERE feed = \(placement.feed) AND id = \(placement.id)")
                placed += 1
            }
            return placed
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
