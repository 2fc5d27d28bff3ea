import FeedCore
import FeedStorage
import Foundation
import GRDB

/// The stream computed over every stored item at once: how `show` read before schema `v5`, kept as
/// the reference the maintained order (``FeedStore/stream(feeds:sources:after:limit:)``, read from the
/// `item_stream_order` index) is tested against, page by page and cursor by cursor. O(store) per call:
/// not for production reads.
extension FeedStore {
    /// Entries after `cursor`, computed over the whole stream; see ``stream(feeds:sources:after:limit:)``.
    func computedStream(
        feeds: [String], sources: [String]? = nil, after cursor: StreamCursor? = nil, limit: Int
    ) throws -> StoredStreamPage {
        try reading("read the stream") { db in
            try Self.computedStream(db, feeds: feeds, sources: sources, after: cursor, offset: 0, limit: limit, page: nil)
        }
    }

    /// Page `page` computed over the whole stream; see ``stream(feeds:sources:page:perPage:)``.
    func computedStream(feeds: [String], sources: [String]? = nil, page: Int, perPage: Int) throws -> StoredStreamPage {
        let page = max(1, page)
        let perPage = max(1, perPage)
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: perPage)
        return try reading("read the stream") { db in
            try Self.computedStream(
                db, feeds: feeds, sources: sources, after: nil, offset: overflow ? Int.max : offset, limit: perPage,
                page: page)
        }
    }

    static func computedStream(
        _ db: Database, feeds: [String], sources: [String]?, after cursor: StreamCursor?, offset: Int, limit: Int,
        page: Int?
    ) throws -> StoredStreamPage {
        let limit = max(1, limit)
        var sourceByFeed: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT name, source FROM feed") {
            sourceByFeed[try row.decode(String.self, forColumn: "name")] = try row.decode(String.self, forColumn: "source")
        }
        let ranked = StreamRanking.ranked(feeds, sourceByFeed: sourceByFeed, sources: sources)
        guard !ranked.isEmpty else {
            return StoredStreamPage(entries: [], totalItems: 0, perPage: limit, totalPages: 0, page: page, nextCursor: nil)
        }
        let rankByFeed = Dictionary(uniqueKeysWithValues: ranked.enumerated().map { ($0.element, $0.offset) })

        var arguments = StatementArguments()
        for (rank, feed) in ranked.enumerated() { _ = arguments.append(contentsOf: [feed, rank]) }
        let values = ranked.map { _ in "(?, ?)" }.joined(separator: ", ")
        // `shown`: one row per dedup key, from the first feed in `feeds` (then its first position).
        let shown = """
            WITH ranks(feed, rank) AS (VALUES \(values)),
            candidates AS (
                SELECT item.rowid AS rid, item.feed, item.id, item.dedup_key, item.sort_key, item.feed_position,
                    ranks.rank AS feed_rank,
                    ROW_NUMBER() OVER (
                        PARTITION BY item.dedup_key ORDER BY ranks.rank, item.feed_position, item.id) AS occurrence
                FROM item JOIN ranks ON ranks.feed = item.feed WHERE item.staged = 0
            ),
            shown AS (
                SELECT rid, feed, id, dedup_key, feed_rank, feed_position, sort_key,
                    (sort_key IS NULL) AS pending, -COALESCE(sort_key, 0.0) AS neg_key
                FROM candidates WHERE occurrence = 1
            )
            """
        let total = try Int.fetchOne(db, sql: shown + " SELECT COUNT(*) FROM shown", arguments: arguments) ?? 0

        // Order and cut on the narrow `shown` rows first, then read the full item rows of the page only.
        let order = "pending, neg_key, feed_rank, feed_position, feed, id"
        var filter = ""
        if let cursor {
            filter = "WHERE (\(order)) > (?, ?, ?, ?, ?, ?)"
            let position = cursor.position
            _ = arguments.append(contentsOf: [
                position.p, -cursor.sortKey, position.r, position.n, position.f, position.i,
            ])
        }
        _ = arguments.append(contentsOf: [limit + 1, offset])
        let pageSQL = shown + """
            , page AS (SELECT * FROM shown \(filter) ORDER BY \(order) LIMIT ? OFFSET ?)
            SELECT page.pending, page.sort_key AS shown_sort_key, page.feed_rank, item.*
            FROM page JOIN item ON item.rowid = page.rid
            ORDER BY page.pending, page.neg_key, page.feed_rank, page.feed_position, page.feed, page.id
            """
        let rows = try Row.fetchAll(db, sql: pageSQL, arguments: arguments)

        let pageRows = rows.prefix(limit)
        var entries: [StreamEntry] = []
        var dedupKeys: [String] = []
        for row in pageRows {
            let feed = try row.decode(String.self, forColumn: "feed")
            // No page shows an item's original JSON (StoredStreamPage).
            var item = try ItemColumns.item(from: row)
            item.raw = nil
            entries.append(
                StreamEntry(
                    item: item, feed: feed, feeds: [feed], source: sourceByFeed[feed] ?? "",
                    firstSeen: try row.decode(Double?.self, forColumn: "first_seen_at").map(Date.init(timeIntervalSince1970:))))
            dedupKeys.append(try row.decode(String.self, forColumn: "dedup_key"))
        }
        // Every listed feed carrying each entry, in feed order.
        if !dedupKeys.isEmpty {
            var carriers: [String: Set<String>] = [:]
            let placeholders = dedupKeys.map { _ in "?" }.joined(separator: ", ")
            for row in try Row.fetchAll(
                db, sql: "SELECT DISTINCT dedup_key, feed FROM item WHERE staged = 0 AND dedup_key IN (\(placeholders))",
                arguments: StatementArguments(dedupKeys))
            {
                let feed = try row.decode(String.self, forColumn: "feed")
                guard rankByFeed[feed] != nil else { continue }
                carriers[try row.decode(String.self, forColumn: "dedup_key"), default: []].insert(feed)
            }
            for index in entries.indices {
                let feeds = carriers[dedupKeys[index]] ?? [entries[index].feed]
                entries[index].feeds = feeds.sorted { (rankByFeed[$0] ?? 0) < (rankByFeed[$1] ?? 0) }
            }
        }

        var nextCursor: String?
        if rows.count > limit, let last = pageRows.last {
            let sortKey = try last.decode(Double?.self, forColumn: "shown_sort_key")
            let position = StreamCursor.Position(
                v: 1, p: try last.decode(Int.self, forColumn: "pending"),
                k: String((sortKey ?? 0).bitPattern, radix: 16),
                r: try last.decode(Int.self, forColumn: "feed_rank"),
                n: try last.decode(Int64.self, forColumn: "feed_position"),
                f: try last.decode(String.self, forColumn: "feed"), i: try last.decode(String.self, forColumn: "id"))
            nextCursor = try StreamCursor(position: position).token
        }
        return StoredStreamPage(
            entries: entries, totalItems: total, perPage: limit, totalPages: (total + limit - 1) / limit, page: page,
            nextCursor: nextCursor)
    }
}
