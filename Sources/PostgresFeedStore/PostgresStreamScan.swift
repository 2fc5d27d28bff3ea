// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedCore
import FeedSearch
import FeedStorage
import Foundation
import PostgresNIO

/// Walks the shown entries of a listing in stream order (or backwards) on PostgreSQL, reading the
/// `item_stream_order` index from a key onwards in batches: the cost is the entries walked past, not
/// the store (the same walk as SQLite's `StreamScan`).
///
/// Each batch is one statement: the next items of the listed feeds after the last key seen, in the
/// full stream order — sort key descending, then the feed's rank in the listing
/// (`array_position` of the listed names), feed position, feed and id (text columns are `COLLATE
/// "C"`, so ties order by bytes, as in SQLite) — with their content, so a page needs no second read
/// of its rows. The plan is an index scan of `item_stream_order` with an incremental sort of the
/// rows sharing one sort key. Items not placed yet (no sort key) come after every placed one, feed
/// by feed in rank order. Items whose dedup key another row carries (`shared`) are checked against
/// their carriers in one more statement per batch; the first carrier in the listing is shown and
/// lists every carrying feed. Runs inside one read transaction (one snapshot).
struct PostgresStreamScan {
    /// One shown entry, with its item.
    struct Row: Sendable {
        var key: StreamOrderKey
        var item: FeedItem
        var firstSeen: Date?
        var feeds: [String]
    }

    /// A row a batch read, decoded once, in the order of ``columns``.
    struct BatchRow: Sendable {
        var key: StreamOrderKey
        var dedupKey: String
        var shared: Bool
        var item: FeedItem
        var firstSeen: Date?

        /// Decodes every column in one pass, in order: by name, PostgresNIO builds a lookup table
        /// per row and searches it per column (about a tenth of a served page's CPU).
        init(_ row: PostgresRow) throws {
            var columns = PostgresColumns(row)
            try self.init(&columns)
        }

        /// Decodes the batch columns from `columns` (a statement may read more after them).
        init(_ columns: inout PostgresColumns) throws {
            let feed = try columns.next(String.self)
            let id = try columns.next(String.self)
            dedupKey = try columns.next(String.self)
            let title = try columns.next(String.self)
            let summary = try columns.next(String?.self)
            let url = try columns.next(String?.self)
            let authorName = try columns.next(String?.self)
            let authorURL = try columns.next(String?.self)
            let authorAvatar = try columns.next(String?.self)
            let imageURL = try columns.next(String?.self)
            let published = try columns.next(Double?.self)
            let updated = try columns.next(Double?.self)
            let sortKey = try columns.next(Double?.self)
            let position = try columns.next(Int64.self)
            firstSeen = try columns.next(Double?.self).map(Date.init(timeIntervalSince1970:))
            shared = try columns.next(Bool.self)
            // NULL: a feed the listing does not name, which a read with no feed filter meets only
            // when its feed table is older than the rows (a one-statement read, which then fails
            // its change-number check and is read again).
            let rank = try columns.next(Int32?.self).map(Int.init) ?? Int.max
            key = StreamOrderKey(sortKey: sortKey, rank: rank, position: position, feed: feed, id: id)
            item = FeedItem(
                id: id, title: title, summary: summary, url: url,
                author: authorName.map { FeedAuthor(name: $0, url: authorURL, avatarURL: authorAvatar) }, imageURL: imageURL,
                published: published.map(Date.init(timeIntervalSince1970:)), updated: updated.map(Date.init(timeIntervalSince1970:)))
        }
    }

    let db: PostgresConnection
    /// The listed feeds in rank order.
    let ranked: [String]
    let rankByFeed: [String: Int]
    /// Every stored feed's source type.
    let sourceByFeed: [String: String]
    /// The query and filter rules (``StreamSelection``): a batch reads only the rows it shows,
    /// and carriers count only when their feed keeps them.
    let selection: StreamSelection
    /// Every stored feed's `visible_items`, read with the listing.
    let visibleByFeed: [String: Int64]
    /// The store's change number, read with the listing in the same snapshot.
    let changeNumber: Int64

    /// At or below this many rows in the index's bound, a walk reads and sorts just those.
    let candidateLimit: Int

    init(
        _ db: PostgresConnection, ranked: [String], sourceByFeed: [String: String], visibleByFeed: [String: Int64],
        changeNumber: Int64, selection: StreamSelection = .everything, candidateLimit: Int = Self.candidateLimit
    ) {
        self.db = db
        self.candidateLimit = candidateLimit
        self.ranked = ranked
        self.sourceByFeed = sourceByFeed
        self.visibleByFeed = visibleByFeed
        self.changeNumber = changeNumber
        self.selection = selection
        rankByFeed = Dictionary(uniqueKeysWithValues: ranked.enumerated().map { ($0.element, $0.offset) })
    }

    /// The item columns a batch reads (not the `tsvector`, not `raw`: no page shows an item's
    /// original JSON), with the listing rank as `stream_rank`, in the order ``BatchRow`` decodes them.
    static let columns = """
        item.feed, item.id, item.dedup_key, item.title, item.summary, item.url, item.author_name, item.author_url,
        item.author_avatar, item.image_url, item.published, item.updated, item.sort_key, item.feed_position,
        item.first_seen_at, item.shared, (array_position($1::text[], item.feed) - 1)::integer AS stream_rank
        """

    /// A renderer of the selection for a statement with `binds` binds before it.
    private func selectionSQL(after binds: Int) -> SelectionSQL<PostgresSelectionDialect> {
        SelectionSQL(
            PostgresSelectionDialect(), listed: ranked, sourceByFeed: sourceByFeed, selection: selection, bindOffset: binds)
    }

    /// Hands `body` each shown entry in stream order (backwards with `reverse`), strictly after
    /// `after` when set, until `body` returns `false`. `batch` is the first batch's size (the rows a
    /// caller expects to need); later batches grow.
    func walk(
        reverse: Bool = false, after: StreamOrderKey? = nil, batch: Int, _ body: (Row) throws -> Bool
    ) async throws {
        guard !ranked.isEmpty else { return }
        let candidates = try await candidates()
        var size = max(1, min(batch, Self.maximumBatch))
        // Placed items come before pending ones: backwards, pending ones first. A walk from a key
        // starts in that key's phase, strictly after it, and goes on from the start of the next.
        let phases = reverse ? [true, false] : [false, true]
        let start = after.map { key in phases.firstIndex(of: key.pending == 1) ?? 0 } ?? 0
        for (index, pending) in phases.enumerated() where index >= start {
            var from = index == start ? after : nil
            while true {
                let rows = try await batchRows(
                    pending: pending, reverse: reverse, after: from, limit: size, candidates: candidates)
                guard !rows.isEmpty else { break }
                for entry in try await shown(rows) {
                    guard try body(entry) else { return }
                }
                guard rows.count == size, let last = rows.last else { break }
                from = last.key
                size = min(size * 4, Self.maximumBatch)
            }
        }
    }

    /// The largest batch read at once.
    static let maximumBatch = 2_000

    /// At or below this many rows in the index's bound, a walk reads just those rows (a GIN
    /// bitmap scan) and sorts them; above it, it walks `item_stream_order` testing each row (the
    /// default of the store's `searchCandidateLimit`).
    static let candidateLimit = 20_000

    /// The `tsquery` whose few matches hold every row the selection shows, when there are few:
    /// the planner, told to fill a page in stream order, would otherwise walk the order index
    /// hoping to meet matches soon, and read the whole store for a rare word.
    private func candidates() async throws -> String? {
        guard selection.narrows, case .within(let set) = SelectionBound(selection, feeds: ranked), !set.isEmpty else {
            return nil
        }
        let query = PostgresSelectionDialect().indexQuery(set)
        // The planner's estimate first: well above the limit (a frequent word, which the column's
        // statistics know by its frequency), the exact bound below would build a bitmap of every
        // match and read 20,001 rows only to say so (about 40 ms for `swift OR rust` at 1,000,000
        // items, on every page). A rare word's estimate is small, and it is counted exactly.
        let plan = try await db.rows("EXPLAIN SELECT 1 FROM item WHERE search @@ \(query)::tsquery AND NOT staged")
        if let estimate = try plan.first.flatMap({ Self.estimatedRows(try $0.decode(String.self)) }),
            estimate > 5 * candidateLimit
        {
            return nil
        }
        let row = try await db.row(
            """
            SELECT COUNT(*) AS bound FROM (
                SELECT 1 FROM item WHERE search @@ \(query)::tsquery AND NOT staged LIMIT \(Int64(candidateLimit + 1))) AS s
            """)
        return try row?.get("bound", Int64.self) ?? 0 <= candidateLimit ? query : nil
    }

    /// The row count of the top node of a text `EXPLAIN` line (`… rows=184561 width=0)`).
    static func estimatedRows(_ line: String) -> Int? {
        guard let range = line.range(of: " rows=") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// The next `limit` listed items of one phase after `after` (its key, strictly), in order.
    private func batchRows(
        pending: Bool, reverse: Bool, after: StreamOrderKey?, limit: Int, candidates: String?
    ) async throws -> [BatchRow] {
        // Listing every stored feed (the usual read): no feed filter. Planning `feed = ANY(…)` over
        // a hundred names (a selectivity estimate per name) and testing it on each row cost
        // 0.8 ms and 0.6 ms of a 1.9 ms batch at 1,000,000 items.
        let filtered = ranked.count != sourceByFeed.count
        let from = after.flatMap { key in pending || key.sortKey != nil ? key : nil }
        let text = Self.batchText(
            filtered: filtered, pending: pending, reverse: reverse, after: from != nil, candidates: candidates != nil)
        var binds = PostgresBindings()
        binds.append(ranked)
        if let from { Self.appendKey(from, pending: pending, to: &binds) }
        if let candidates { binds.append(candidates) }
        var sql = "SELECT \(Self.columns) FROM item WHERE \(text.conditions)"
        if selection.narrows {
            var selected = selectionSQL(after: binds.count)
            switch selected.shown("item") {
            case .always: break
            case .never: return []
            case .sql(let shown):
                let finished = selected.finish(" AND \(shown)")
                sql += finished.sql
                PostgresSelectionDialect.append(finished.binds, to: &binds)
            }
        }
        binds.append(Int64(limit))
        sql += " ORDER BY \(text.order) LIMIT $\(binds.count)"
        return try await db.rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map(BatchRow.init)
    }

    /// The `WHERE` conditions and the `ORDER BY` of a batch (before any selection's conditions),
    /// given its binds: `$1` the listing; with `after`, the key's (``appendKey(_:pending:to:)``);
    /// with `candidates`, the `tsquery`.
    ///
    /// With `boundHidden`, the key's sort key is read through a sub-select, which the planner
    /// estimates without its value: a prepared statement's custom plans then cost what its generic
    /// plan does, and PostgreSQL keeps the generic one after its first five executions instead of
    /// planning each one anew (``OneStatementRows``).
    static func batchText(
        filtered: Bool, pending: Bool, reverse: Bool, after: Bool, candidates: Bool, boundHidden: Bool = false
    ) -> (conditions: String, order: String) {
        let ascending = reverse ? "DESC" : "ASC"
        var conditions = "NOT staged AND \(filtered ? "feed = ANY($1::text[]) AND " : "")"
        let order: String
        if pending {
            conditions += "sort_key IS NULL"
            if after {
                let comparison = reverse ? "<" : ">"
                conditions += """
                     AND (array_position($1::text[], feed) - 1, feed_position, feed, id) \(comparison)
                        ($2, $3, $4 COLLATE "C", $5 COLLATE "C")
                    """
            }
            order = "stream_rank \(ascending), feed_position \(ascending), feed \(ascending), id \(ascending)"
        } else {
            conditions += "sort_key IS NOT NULL"
            if after {
                // Forward, the stream runs down the keys; backwards, up. The range condition on its
                // own lets the planner start the index scan at the key.
                let (range, strict, comparison) = reverse ? (">=", ">", "<") : ("<=", "<", ">")
                let bound = boundHidden ? "(SELECT $2::double precision)" : "$2"
                conditions += """
                     AND sort_key \(range) \(bound) AND (sort_key \(strict) \(bound) OR
                        (array_position($1::text[], feed) - 1, feed_position, feed, id) \(comparison)
                        ($3, $4, $5 COLLATE "C", $6 COLLATE "C"))
                    """
            }
            let keyOrder = reverse ? "ASC" : "DESC"
            // With few candidates, `+ 0` keeps the planner off the order index: it reads them
            // (GIN bitmap) and sorts them.
            order = """
                sort_key\(candidates ? " + 0" : "") \(keyOrder), stream_rank \(ascending), feed_position \(ascending), feed \(ascending), id \(ascending)
                """
        }
        if candidates {
            conditions += " AND item.search @@ $\(after ? (pending ? 6 : 7) : 2)::tsquery"
        }
        return (conditions, order)
    }

    /// Appends the binds of the key a batch starts after: placed, its sort key, rank, position,
    /// feed and id; pending, the same without the sort key.
    static func appendKey(_ key: StreamOrderKey, pending: Bool, to binds: inout PostgresBindings) {
        if !pending { binds.append(key.sortKey ?? 0) }
        binds.append(Int64(key.rank))
        binds.append(key.position)
        binds.append(key.feed)
        binds.append(key.id)
    }

    /// The entries of a batch the stream shows: every unshared row, and each shared row that is the
    /// first of its dedup key's listed carriers (one statement reads the carriers of the batch).
    private func shown(_ rows: [BatchRow]) async throws -> [Row] {
        let sharedKeys = rows.filter(\.shared).map(\.dedupKey)
        var carriers: [String: StreamCarriers] = [:]
        if !sharedKeys.isEmpty {
            var binds = PostgresBindings()
            binds.append(sharedKeys)
            var sql = """
                SELECT carrier.dedup_key, carrier.feed, carrier.feed_position, carrier.id FROM item AS carrier
                WHERE NOT carrier.staged AND carrier.dedup_key = ANY($1::text[])
                """
            var selected = selectionSQL(after: binds.count)
            if let kept = selected.kept("carrier") {
                let finished = selected.finish(" AND \(kept)")
                sql += finished.sql
                PostgresSelectionDialect.append(finished.binds, to: &binds)
            }
            for raw in try await db.rows(PostgresQuery(unsafeSQL: sql, binds: binds)) {
                var columns = PostgresColumns(raw)
                let (dedupKey, feed) = (try columns.next(String.self), try columns.next(String.self))
                let (position, id) = (try columns.next(Int64.self), try columns.next(String.self))
                addCarrier(feed: feed, position: position, id: id, of: dedupKey, to: &carriers)
            }
        }
        return entries(rows, carriers: carriers)
    }

    /// Adds the row `feed`/`id` at `position` to the carriers of `dedupKey` when its feed is listed.
    func addCarrier(feed: String, position: Int64, id: String, of dedupKey: String, to carriers: inout [String: StreamCarriers]) {
        guard let rank = rankByFeed[feed] else { return }
        carriers[dedupKey, default: StreamCarriers()].append(
            StreamCarriers.Carrier(feed: feed, rank: rank, position: position, id: id))
    }

    /// The entries the stream shows of `rows`, given the listed carriers of their shared keys.
    func entries(_ rows: [BatchRow], carriers: [String: StreamCarriers]) -> [Row] {
        var entries: [Row] = []
        entries.reserveCapacity(rows.count)
        for row in rows {
            var feeds = [row.key.feed]
            if row.shared, let keyCarriers = carriers[row.dedupKey] {
                guard keyCarriers.shows(feed: row.key.feed, id: row.key.id) else { continue }
                feeds = keyCarriers.feeds
            }
            entries.append(Row(key: row.key, item: row.item, firstSeen: row.firstSeen, feeds: feeds))
        }
        return entries
    }

    /// Σ `visible_items` of the listed feeds.
    var visibleItems: Int64 { ranked.reduce(0) { $0 + (visibleByFeed[$1] ?? 0) } }

    /// The repeated entries of the listing `$1`: shared rows beyond the first of each dedup key.
    static let repeatsStatement = """
        SELECT (COUNT(*) - COUNT(DISTINCT dedup_key))::bigint AS repeats FROM item
        WHERE shared AND NOT staged AND feed = ANY($1::text[])
        """

    /// The change number and the repeats of the listing `$1`, in one snapshot.
    static let versionedRepeatsStatement = """
        SELECT COALESCE((SELECT version FROM store_change WHERE id = 1), 0)::bigint AS version, counted.repeats
        FROM (\(repeatsStatement)) AS counted
        """

    /// Entries of the listing: Σ `visible_items` of the listed feeds minus the repeats among the
    /// shared items (the `item_shared` index): one row per feed plus one entry per shared item.
    /// A narrowed read's total is kept until the change number moves (``StreamTotalsCache``).
    ///
    /// A words-only query over every stored feed is counted from sets once its frequent terms are
    /// kept (``PostgresSearchDocuments``, `documents`).
    func totalItems(
        repeats cache: StreamRepeatsCache, totals: StreamTotalsCache, documents: SearchDocumentCache
    ) async throws -> Int {
        guard !ranked.isEmpty else { return 0 }
        if selection.narrows {
            let count = {
                if let set = self.selection.textOnly, self.ranked.count == self.sourceByFeed.count,
                    let counted = try await PostgresSearchDocuments.count(set, scan: self, documents: documents)
                {
                    return counted
                }
                let (sql, selectionBinds) = SelectionCount.statement(
                    PostgresSelectionDialect(), listing: self.ranked, sourceByFeed: self.sourceByFeed, selection: self.selection)
                var binds = PostgresBindings()
                PostgresSelectionDialect.append(selectionBinds, to: &binds)
                let row = try await self.db.row(PostgresQuery(unsafeSQL: sql, binds: binds))
                return Int(try row?.get("total", Int64.self) ?? 0)
            }
            guard selection.isFixedBetweenChanges else { return try await count() }
            return try await totals.count(
                of: StreamTotalsKey(listing: ranked, selection: selection), at: changeNumber, count: count)
        }
        // The counts and the change number come from the listing's read (the session's snapshot),
        // taken before any count: a count is never older than the number it is kept under.
        let visible = visibleItems
        let repeats = try await cache.count(of: ranked, at: changeNumber) {
            var binds = PostgresBindings()
            binds.append(ranked)
            let counted = try await db.row(PostgresQuery(unsafeSQL: Self.repeatsStatement, binds: binds))
            return Int(try counted?.get("repeats", Int64.self) ?? 0)
        }
        return Int(visible) - repeats
    }
}

#endif
