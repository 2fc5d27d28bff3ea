import FeedCore
import FeedSearch
import FeedStorage
import Foundation
import GRDB

/// The feeds a stream read lists: `feeds` in the order given (first occurrence), narrowed to the
/// stored feeds whose source type is in `sources` (when set), with each feed's rank and source.
struct StreamListing: Sendable {
    var ranked: [String]
    var rankByFeed: [String: Int]
    var sourceByFeed: [String: String]
    /// The store's change number in the read's snapshot, read once with the listing: the counts
    /// kept per change (``totalItems(_:selection:repeats:totals:)``) are keyed by it.
    var changeVersion: Int64

    /// What a listing is resolved from.
    struct Key: Hashable, Sendable {
        var feeds: [String]
        var sources: [String]?
    }

    /// The listing of `feeds` and `sources`, resolved once per change of the store (a served page
    /// read the `feed` table and built its maps on every request: about 5 % of its CPU).
    static func cached(
        _ db: Database, feeds: [String], sources: [String]?, in cache: StoreChangeCache<Key, StreamListing>
    ) throws -> StreamListing {
        let version = try Schema.changeVersion(in: db)
        return try cache.value(of: Key(feeds: feeds, sources: sources), at: version) {
            try StreamListing(db, feeds: feeds, sources: sources, changeVersion: version)
        }
    }

    init(_ db: Database, feeds: [String], sources: [String]?, changeVersion: Int64) throws {
        self.changeVersion = changeVersion
        var sourceByFeed: [String: String] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT name, source FROM feed")) {
            sourceByFeed[try row.decode(String.self, atIndex: 0)] = try row.decode(String.self, atIndex: 1)
        }
        var ranked: [String] = []
        var rankByFeed: [String: Int] = [:]
        for feed in feeds where rankByFeed[feed] == nil {
            guard let source = sourceByFeed[feed] else { continue }
            if let sources, !sources.contains(source) { continue }
            rankByFeed[feed] = ranked.count
            ranked.append(feed)
        }
        self.ranked = ranked
        self.rankByFeed = rankByFeed
        self.sourceByFeed = sourceByFeed
    }

    /// Entries of the listing: every listed feed's visible items (the maintained `visible_items`)
    /// minus the repeats among the shared items (the `item_shared` index), so the cost is one row
    /// per feed plus one index entry per shared item, never a scan of the store.
    ///
    /// The total is kept until the store changes (``StreamTotalsCache``), so the pages of one
    /// listing or search after the first cost no count.
    ///
    /// `matches` are the rows of a words-only query (``matches(_:selection:documents:)``), when
    /// the caller has them.
    func totalItems(
        _ db: Database, selection: StreamSelection, repeats cache: StreamRepeatsCache, totals: StreamTotalsCache,
        documents: SearchDocumentCache, matches: DocumentSet? = nil
    ) throws -> Int {
        guard selection.narrows else {
            return try totals.count(
                of: StreamTotalsKey(listing: ranked, selection: .everything), at: changeVersion
            ) { try totalItems(db, repeats: cache) }
        }
        guard !ranked.isEmpty else { return 0 }
        let count = {
            // Words only, over every stored feed: a row matches exactly when the index has it,
            // so the count is set arithmetic over the rows of the query's terms.
            if ranked.count == sourceByFeed.count,
                let matches = try matches ?? self.matches(db, selection: selection, documents: documents)
            {
                return try documents.entries(db, listing: self).count(matches)
            }
            let (sql, binds) = SelectionCount.statement(
                SQLiteSelectionDialect(), listing: ranked, sourceByFeed: sourceByFeed, selection: selection)
            return try Int.fetchOne(db, sql: sql, arguments: SQLiteSelectionDialect.arguments(binds)) ?? 0
        }
        guard selection.isFixedBetweenChanges else { return try count() }
        return try totals.count(
            of: StreamTotalsKey(listing: ranked, selection: selection), at: changeVersion, count: count)
    }

    /// The index's rows matching a words-only query (``StreamSelection/textOnly``), from the rows
    /// of its terms (the frequent ones kept per change: ``SearchDocumentCache``); `nil` for any other
    /// selection. A read works them out once: they bound its walk and make its count.
    func matches(_ db: Database, selection: StreamSelection, documents: SearchDocumentCache) throws -> DocumentSet? {
        guard let set = selection.textOnly else { return nil }
        return try set.documents { try documents.documents(db, of: $0, at: changeVersion) }
    }

    /// The visible items of the listed feeds less the repeated entries (counted once per change of
    /// the store: ``StreamRepeatsCache``).
    func totalItems(_ db: Database, repeats cache: StreamRepeatsCache) throws -> Int {
        guard !ranked.isEmpty else { return 0 }
        let placeholders = ranked.map { _ in "?" }.joined(separator: ", ")
        let arguments = StatementArguments(ranked)
        let visible =
            try Int.fetchOne(db, sql: "SELECT SUM(visible_items) FROM feed WHERE name IN (\(placeholders))", arguments: arguments)
            ?? 0
        // Listing every stored feed (the usual `show`): no feed filter to test on each shared item.
        let everyFeed = ranked.count == sourceByFeed.count
        let repeats = try cache.count(of: ranked, at: changeVersion) {
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) - COUNT(DISTINCT dedup_key) FROM item INDEXED BY item_shared
                    WHERE shared = 1 AND staged = 0 \(everyFeed ? "" : "AND feed IN (\(placeholders))")
                    """,
                arguments: everyFeed ? [] : arguments) ?? 0
        }
        return visible - repeats
    }
}

/// Walks the shown entries of a listing in stream order (or backwards) straight from the
/// `item_stream_order` index, which holds the visible items by their maintained sort key.
///
/// The sort key and the feed position are written with each item (see ``FeedStore`` placement), so the
/// walk reads the index in key order and only sorts the few items that share one key by the
/// listing's feed ranks (the one part of the order a read chooses). Items placed last (no key yet) are
/// read feed by feed, in rank order, by feed position. An item is shown unless another listed feed
/// carries its dedup key first; only items marked `shared` need that lookup. The cost is the entries
/// walked past, not the store.
///
/// Used inside one read transaction; not thread-safe.
final class StreamScan {
    /// One visible item as the index holds it.
    struct Row {
        var rowid: Int64
        /// Its place in stream order (as PostgreSQL's scan rows carry it).
        var key: StreamOrderKey
        /// Whether another item shares its dedup key.
        var shared: Bool

        var feed: String { key.feed }
        var sortKey: Double? { key.sortKey }
    }

    private let db: Database
    let listing: StreamListing
    /// The listed feeds carrying each shared entry shown, in rank order, by row id.
    private(set) var carriers: [Int64: [String]] = [:]

    /// What a walk reads of each row: all from `item_stream_order`, which covers it, and the
    /// index key `doc` (from the table) only where rows are tested against the query's rows.
    private var columns: String {
        "rowid, sort_key, feed, feed_position, id, shared" + (matchSet == nil ? "" : ", doc")
    }

    /// The query and filter rules.
    private let selection: StreamSelection
    /// The FTS5 expression whose few matches hold every row the selection shows: the walk reads
    /// them and sorts them instead of walking the index past the rest.
    private var candidates: String?
    /// Whether the index says no row can match.
    private var nothing = false
    /// The index's rows of a words-only query, which a walk of the stream index tests rows against.
    private var matchSet: DocumentSet?
    /// The rows a walk may read (``walkFirst(budget:)``), the rows it has read, and the candidates'
    /// expression it will read instead past the budget.
    private var walkBudget: Int?
    private var walkedRows = 0
    private var candidateExpression: String?

    /// Above this many rows in the index's bound, a walk reads the stream index in order and
    /// tests each row (the matches are dense enough to fill a page soon); at or below it, the
    /// walk reads just the bound's rows and sorts them (the default of the store's
    /// `searchCandidateLimit`).
    static let candidateLimit = 20_000

    /// `matches` are the index's rows of a words-only query, when the caller has them
    /// (``StreamListing/matches(_:selection:documents:)``): their size is the bound, and a walk of
    /// the stream index tests each row's key against them instead of the row's text. Without
    /// them the index counts the bound, up to the limit.
    init(
        _ db: Database, listing: StreamListing, selection: StreamSelection = .everything,
        candidateLimit: Int = StreamScan.candidateLimit, matches: DocumentSet? = nil
    ) throws {
        self.db = db
        self.listing = listing
        self.selection = selection
        guard selection.narrows else { return }
        let dialect = SQLiteSelectionDialect()
        var shown = SelectionSQL(dialect, listed: listing.ranked, sourceByFeed: listing.sourceByFeed, selection: selection)
        guard shown.shown("item") != .never else {
            nothing = true
            return
        }
        if case .within(let set) = SelectionBound(selection, feeds: listing.ranked) {
            guard !set.isEmpty else {
                nothing = true
                return
            }
            let expression = dialect.indexQuery(set)
            // Counted no further than the limit: a broad set's full count is most of a page's cost.
            matchSet = selection.textOnly == set ? matches : nil
            let bound = try matchSet?.count ?? Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM (SELECT 1 FROM item_search WHERE item_search MATCH ? LIMIT ?)",
                arguments: [expression, candidateLimit + 1]) ?? 0
            if bound <= candidateLimit { candidates = expression }
        }
    }

    /// Thrown by a walk that read more rows than its budget (``walkFirst(budget:)``).
    private struct BudgetSpent: Error {}

    /// Walks as ``walk(reverse:after:_:)`` a read that takes about `wanted` entries, choosing
    /// first how: where the index's candidates would be read and sorted, a words-only query whose
    /// matches are known walks the stream index instead when that should read far fewer rows
    /// (a match every `entries / matches` rows, `entries` the listing's unfiltered total). If
    /// the matches turn out gathered in one stretch (a word only old items have), the walk stops
    /// at four times the rows expected, `reset` empties what `body` took, and the candidates are
    /// read after all. `budget`, when set (tests), is the walk's budget whatever the expectation.
    func walk(
        reverse: Bool = false, after: StreamOrderKey? = nil, wanted: Int, entries: () throws -> Int, reset: () -> Void,
        budget: Int? = nil, _ body: (Row) throws -> Bool
    ) throws {
        if let budget {
            walkFirst(budget: budget)
        } else if candidates != nil, let matchCount = matchSet?.count {
            let expected = wanted * (try entries() / max(1, matchCount) + 1)
            if expected * 4 < matchCount { walkFirst(budget: max(1_000, expected * 4)) }
        }
        do {
            try walk(reverse: reverse, after: after, body)
        } catch is BudgetSpent {
            reset()
            readCandidates()
            try walk(reverse: reverse, after: after, body)
        }
    }

    /// Walks the stream index instead of reading the index's candidates, reading at most `budget`
    /// rows (past it a walk throws ``BudgetSpent``).
    private func walkFirst(budget: Int) {
        guard let expression = candidates, matchSet != nil else { return }
        (walkBudget, walkedRows, candidates, candidateExpression) = (budget, 0, nil, expression)
    }

    /// After ``BudgetSpent``: reads the index's candidates again, with no budget.
    private func readCandidates() {
        guard let expression = candidateExpression else { return }
        (walkBudget, candidates, candidateExpression) = (nil, expression, nil)
        carriers.removeAll()
    }

    /// The condition (` AND …`) a walked row (`item`) meets to be shown under the selection, for a
    /// statement with `binds` plain `?` before it, and its arguments; empty when nothing narrows.
    private func shown(after binds: Int) -> (sql: String, arguments: StatementArguments) {
        guard selection.narrows else { return ("", []) }
        if let set = selection.textOnly {
            // Words only: a row is shown when the index has it. Reading the index's candidates,
            // every row read is one; walking the stream index, a row is tested against the
            // query's rows where they are known (in `listed`), else by one test of the whole
            // set (not one per word) on the row's own text.
            if candidates != nil || matchSet != nil { return ("", []) }
            return (" AND " + SQLiteSelectionDialect.rowTest("item", "?\(binds + 1)"), [set.rowTest])
        }
        var sql = SelectionSQL(
            SQLiteSelectionDialect(), listed: listing.ranked, sourceByFeed: listing.sourceByFeed, selection: selection,
            bindOffset: binds)
        guard let condition = sql.shown("item").sql(SQLiteSelectionDialect()) else { return ("", []) }
        let finished = sql.finish(" AND \(condition)")
        return (finished.sql, SQLiteSelectionDialect.arguments(finished.binds))
    }

    /// The condition (` AND …`) that a carrier row (`carrier`) is kept by its feed, after `binds`
    /// plain `?`.
    private func kept(after binds: Int) -> (sql: String, arguments: StatementArguments) {
        guard selection.rules.hidesItems else { return ("", []) }
        var sql = SelectionSQL(
            SQLiteSelectionDialect(), listed: listing.ranked, sourceByFeed: listing.sourceByFeed, selection: selection,
            bindOffset: binds)
        guard let condition = sql.kept("carrier") else { return ("", []) }
        let finished = sql.finish(" AND \(condition)")
        return (finished.sql, SQLiteSelectionDialect.arguments(finished.binds))
    }

    /// ``kept(after:)`` for the carriers' statement (one `?` before it).
    private lazy var carrierKept = kept(after: 1)

    /// The `FROM` and the first conditions of a walk's statement, with their arguments: the
    /// stream index, or the index's few candidates.
    private func source(index: String) -> (sql: String, arguments: StatementArguments) {
        guard let candidates else { return ("FROM item INDEXED BY \(index) WHERE staged = 0", []) }
        return (
            "FROM item WHERE doc IN (SELECT rowid FROM item_search WHERE item_search MATCH ?) AND staged = 0",
            [candidates]
        )
    }

    /// Calls `body` with each shown entry, in stream order (backwards with `reverse`), strictly after
    /// `after` when set, until `body` returns `false`.
    func walk(reverse: Bool = false, after: StreamOrderKey? = nil, _ body: (Row) throws -> Bool) throws {
        guard !listing.ranked.isEmpty, !nothing else { return }
        if reverse {
            guard try walkPending(reverse: true, after: after, body) else { return }
            _ = try walkPlaced(reverse: true, after: after, body)
        } else {
            guard try walkPlaced(reverse: false, after: after, body) else { return }
            _ = try walkPending(reverse: false, after: after, body)
        }
    }

    /// The items with a sort key, by key; items sharing a key are sorted by rank, position and id.
    private func walkPlaced(reverse: Bool, after: StreamOrderKey?, _ body: (Row) throws -> Bool) throws -> Bool {
        if let after, after.pending == 1 { return true }
        let (from, fromArguments) = source(index: "item_stream_order")
        var sql = "SELECT \(columns) \(from) AND sort_key IS NOT NULL"
        var arguments = fromArguments
        var plain = candidates == nil ? 0 : 1
        if let after {
            sql += " AND sort_key <= ?"
            _ = arguments.append(contentsOf: [-after.negatedKey])
            plain += 1
        }
        let shown = shown(after: plain)
        sql += shown.sql
        arguments += shown.arguments
        sql += " ORDER BY sort_key \(reverse ? "ASC" : "DESC")"
        // A listing's walk (no search, view or rule) has four texts at most (from a cursor or not,
        // either way): kept prepared on the connection, a page does not compile it again. A
        // selection's text follows the query's shape, which readers choose: compiled each time,
        // so that no reader grows the connection's statement cache.
        let statement = selection.narrows ? try db.makeStatement(sql: sql) : try db.cachedStatement(sql: sql)
        let rows = try GRDB.Row.fetchCursor(statement, arguments: arguments)
        var group: [Row] = []
        while let raw = try rows.next() {
            guard let row = try listed(raw) else { continue }
            if let first = group.first, first.sortKey != row.sortKey {
                guard try emit(&group, reverse: reverse, after: after, body) else { return false }
            }
            group.append(row)
        }
        return try emit(&group, reverse: reverse, after: after, body)
    }

    /// The items not placed yet (no sort key), feed by feed in rank order, by feed position and id.
    private func walkPending(reverse: Bool, after: StreamOrderKey?, _ body: (Row) throws -> Bool) throws -> Bool {
        // Usually every item is placed: one index probe says so.
        let anyPending = try Bool.fetchOne(
            db.cachedStatement(
                sql: "SELECT EXISTS (SELECT 1 FROM item INDEXED BY item_stream_order WHERE staged = 0 AND sort_key IS NULL)"))
        guard anyPending == true else { return true }
        let direction = reverse ? "DESC" : "ASC"
        let (from, fromArguments) = source(index: "item_stream_order")
        let shown = shown(after: candidates == nil ? 1 : 2)
        let sql = """
            SELECT \(columns) \(from) AND sort_key IS NULL AND feed = ?\(shown.sql)
            ORDER BY feed_position \(direction), id \(direction)
            """
        // Kept prepared for a listing only, as in `walkPlaced`.
        let statement = selection.narrows ? try db.makeStatement(sql: sql) : try db.cachedStatement(sql: sql)
        for feed in reverse ? listing.ranked.reversed() : listing.ranked {
            if let after, after.pending == 1, let rank = listing.rankByFeed[feed], rank < after.rank { continue }
            let rows = try GRDB.Row.fetchCursor(statement, arguments: fromArguments + [feed] + shown.arguments)
            while let raw = try rows.next() {
                guard let row = try listed(raw) else { continue }
                if let after, !after.precedes(row.key) { continue }
                guard try !isShadowed(row) else { continue }
                guard try body(row) else { return false }
            }
        }
        return true
    }

    /// Sorts a group of items sharing one sort key, hands the shown ones to `body` and empties it.
    private func emit(_ group: inout [Row], reverse: Bool, after: StreamOrderKey?, _ body: (Row) throws -> Bool) throws
        -> Bool
    {
        defer { group.removeAll(keepingCapacity: true) }
        if group.count > 1 {
            group.sort { a, b in
                reverse ? b.key.precedes(a.key) : a.key.precedes(b.key)
            }
        }
        for row in group {
            if let after, !after.precedes(row.key) { continue }
            guard try !isShadowed(row) else { continue }
            guard try body(row) else { return false }
        }
        return true
    }

    private func listed(_ raw: GRDB.Row) throws -> Row? {
        if candidates == nil, let matchSet {
            if let budget = walkBudget {
                walkedRows += 1
                if walkedRows > budget { throw BudgetSpent() }
            }
            guard let doc: Int64 = raw[6], matchSet.contains(doc) else { return nil }
        }
        let feed: String = raw[2]
        guard let rank = listing.rankByFeed[feed] else { return nil }
        return Row(
            rowid: raw[0], key: StreamOrderKey(sortKey: raw[1], rank: rank, position: raw[3], feed: feed, id: raw[4]),
            shared: raw[5])
    }

    /// Whether a listed feed carries `row`'s dedup key before it (lower rank, then position, then id),
    /// so that the stream shows that one instead. Records the carriers of the shown ones.
    private func isShadowed(_ row: Row) throws -> Bool {
        guard row.shared else { return false }
        let kept = carrierKept
        let rows = try GRDB.Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT carrier.feed, carrier.feed_position, carrier.id FROM item AS carrier
                    WHERE carrier.dedup_key = (SELECT dedup_key FROM item WHERE rowid = ?) AND carrier.staged = 0\(kept.sql)
                    """),
            arguments: [row.rowid] + kept.arguments)
        var carriers = StreamCarriers()
        for raw in rows {
            let feed: String = raw[0]
            guard let rank = listing.rankByFeed[feed] else { continue }
            carriers.append(StreamCarriers.Carrier(feed: feed, rank: rank, position: raw[1], id: raw[2]))
        }
        guard carriers.shows(feed: row.key.feed, id: row.key.id) else { return true }
        self.carriers[row.rowid] = carriers.feeds
        return false
    }
}
