// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedCore
import FeedStorage
import Foundation
import PostgresNIO

/// The stream computed over every listed item at once: how PostgreSQL read before schema `v2` (a
/// window function numbering each dedup key's carriers, and a count of the whole listing, per
/// page), kept as the reference the O(page) walk (``PostgresFeedStore/stream(feeds:sources:after:limit:)``)
/// is tested against, page by page and cursor by cursor. O(store) per call: not for production reads.
extension PostgresFeedStore {
    /// Entries after `cursor`, computed over the whole stream.
    func computedStream(
        feeds: [String], sources: [String]? = nil, after cursor: StreamCursor? = nil, limit: Int
    ) throws -> StoredStreamPage {
        try session("read the stream") { db in
            try await Self.computedStreamPage(
                db, feeds: feeds, sources: sources, after: cursor, offset: 0, limit: limit, page: nil)
        }
    }

    /// Page `page` computed over the whole stream.
    func computedStream(feeds: [String], sources: [String]? = nil, page: Int, perPage: Int) throws -> StoredStreamPage {
        let page = max(1, page)
        let perPage = max(1, perPage)
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: perPage)
        return try session("read the stream") { db in
            try await Self.computedStreamPage(
                db, feeds: feeds, sources: sources, after: nil, offset: overflow ? Int.max : offset, limit: perPage,
                page: page)
        }
    }

    static func computedStreamPage(
        _ db: PostgresConnection, feeds: [String], sources: [String]?, after cursor: StreamCursor?, offset: Int,
        limit: Int, page: Int?
    ) async throws -> StoredStreamPage {
        let limit = max(1, limit)
        var sourceByFeed: [String: String] = [:]
        for row in try await db.rows("SELECT name, source FROM feed") {
            let (name, source) = try row.decode((String, String).self)
            sourceByFeed[name] = source
        }
        let ranked = StreamRanking.ranked(feeds, sourceByFeed: sourceByFeed, sources: sources)
        guard !ranked.isEmpty else {
            return StoredStreamPage(entries: [], totalItems: 0, perPage: limit, totalPages: 0, page: page, nextCursor: nil)
        }
        let rankByFeed = Dictionary(uniqueKeysWithValues: ranked.enumerated().map { ($0.element, $0.offset) })
        let ranks = ranked.indices.map(Int64.init)

        var binds = PostgresBindings()
        binds.append(ranked)
        binds.append(ranks)
        let shown = """
            WITH ranks(feed, rank) AS (SELECT * FROM unnest($1::text[], $2::bigint[])),
            candidates AS (
                SELECT item.feed, item.id, item.sort_key, item.feed_position, ranks.rank AS feed_rank,
                    ROW_NUMBER() OVER (
                        PARTITION BY item.dedup_key ORDER BY ranks.rank, item.feed_position, item.id) AS occurrence
                FROM item JOIN ranks ON ranks.feed = item.feed WHERE NOT item.staged
            ),
            shown AS (
                SELECT feed, id, feed_rank, feed_position, sort_key,
                    (CASE WHEN sort_key IS NULL THEN 1 ELSE 0 END) AS pending, -COALESCE(sort_key, 0.0) AS neg_key
                FROM candidates WHERE occurrence = 1
            )

            """
        let total = Int(
            try await db.row(PostgresQuery(unsafeSQL: shown + "SELECT COUNT(*) AS total FROM shown", binds: binds))?
                .get("total", Int64.self) ?? 0)

        // Cut on the narrow `shown` rows first, then read the full item rows of the page only.
        let order = "pending, neg_key, feed_rank, feed_position, feed, id"
        var sql = shown
        if let cursor {
            let position = cursor.position
            binds.append(Int32(position.p))
            binds.append(-cursor.sortKey)
            binds.append(Int64(position.r))
            binds.append(position.n)
            binds.append(position.f)
            binds.append(position.i)
            binds.append(Int64(limit) + 1)
            sql += """
                , page AS (
                    SELECT * FROM shown
                    WHERE (\(order)) > ($3, $4, $5, $6, $7 COLLATE "C", $8 COLLATE "C")
                    ORDER BY \(order) LIMIT $9)
                """
        } else {
            binds.append(Int64(limit) + 1)
            binds.append(Int64(offset))
            sql += ", page AS (SELECT * FROM shown ORDER BY \(order) LIMIT $3 OFFSET $4)"
        }
        sql += """

            SELECT page.pending, page.sort_key AS shown_sort_key, page.feed_rank, item.*
            FROM page JOIN item ON item.feed = page.feed AND item.id = page.id
            ORDER BY page.pending, page.neg_key, page.feed_rank, page.feed_position, page.feed, page.id
            """
        let rows = try await db.rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map { $0.makeRandomAccess() }
        let pageRows = rows.prefix(limit)
        var entries: [StreamEntry] = []
        var dedupKeys: [String] = []
        for row in pageRows {
            let feed = try row.get("feed", String.self)
            // No page shows an item's original JSON (StoredStreamPage).
            var item = try PostgresItemColumns.item(from: row)
            item.raw = nil
            entries.append(
                StreamEntry(
                    item: item, feed: feed, feeds: [feed],
                    source: sourceByFeed[feed] ?? "",
                    firstSeen: try row.get("first_seen_at", Double?.self).map(Date.init(timeIntervalSince1970:))))
            dedupKeys.append(try row.get("dedup_key", String.self))
        }
        // Every listed feed carrying each entry, in feed order.
        if !dedupKeys.isEmpty {
            var carriers: [String: Set<String>] = [:]
            for row in try await db.rows(
                "SELECT DISTINCT dedup_key, feed FROM item WHERE NOT staged AND dedup_key = ANY(\(dedupKeys))")
            {
                let (key, feed) = try row.decode((String, String).self)
                guard rankByFeed[feed] != nil else { continue }
                carriers[key, default: []].insert(feed)
            }
            for index in entries.indices {
                let feeds = carriers[dedupKeys[index]] ?? [entries[index].feed]
                entries[index].feeds = feeds.sorted { (rankByFeed[$0] ?? 0) < (rankByFeed[$1] ?? 0) }
            }
        }
        var nextCursor: String?
        if rows.count > limit, let last = pageRows.last {
            let sortKey = try last.get("shown_sort_key", Double?.self)
            let position = StreamCursor.Position(
                v: 1, p: Int(try last.get("pending", Int32.self)), k: String((sortKey ?? 0).bitPattern, radix: 16),
                r: Int(try last.get("feed_rank", Int64.self)), n: try last.get("feed_position", Int64.self),
                f: try last.get("feed", String.self), i: try last.get("id", String.self))
            nextCursor = try StreamCursor(position: position).token
        }
        return StoredStreamPage(
            entries: entries, totalItems: total, perPage: limit, totalPages: (total + limit - 1) / limit, page: page,
            nextCursor: nextCursor)
    }
}

#endif
