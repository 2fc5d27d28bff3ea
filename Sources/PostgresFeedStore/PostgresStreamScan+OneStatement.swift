// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedStorage
import PostgresNIO

/// A page of an unnarrowed listing in one statement, when one is enough.
///
/// The general read is a read-only transaction of four or five statements (`BEGIN`, the feed
/// table, a batch, the carriers of its shared rows, `COMMIT`), each a round trip, a parse and a
/// plan: about 3 ms of CPU per page between the backend and the driver, which capped pages after
/// a random cursor near 450 a second at 1,000,000 items. Most pages need none of that: the feed
/// table is the one kept from the last read (``PostgresFeedTable``), the listing's repeats are
/// kept for its change number (``StreamRepeatsCache``), and one batch, with its rows' carriers,
/// fills the page. So this statement reads the batch, the carriers of each shared row (a lateral
/// `array_agg` over `item_dedup_key`), the change number, and the repeats when they are not kept,
/// in one snapshot (one statement sees one). When its change number is not the kept table's, or
/// the batch did not settle the page (rows hidden behind their carriers used up the slack, or the
/// placed items ended where pending ones may follow), the caller reads the page the general way.
extension PostgresStreamScan {
    /// What one statement read: the page's entries, whether more follow, and the counts.
    struct OneStatementPage {
        /// The page's entries, in stream order.
        var rows: ArraySlice<Row>
        /// Whether entries follow the page.
        var more: Bool
        /// The store's change number in the statement's snapshot.
        var changeNumber: Int64
        /// The listing's repeated entries at that change number.
        var repeats: Int
    }

    /// What one statement walked: shown entries in walk order, and what the statement saw.
    struct OneStatementWalk {
        /// The shown entries of the rows read, in walk order.
        var shown: [Row]
        /// Whether the walk reached the end of the stream: the rows ran out before the count asked,
        /// and no listed item is waiting to be placed (those come after every placed one).
        var reachedEnd: Bool
        /// The store's change number in the statement's snapshot.
        var changeNumber: Int64
        /// The listing's repeated entries at that change number.
        var repeats: Int
    }

    /// Rows read at least beyond the page's `limit + 1` (a prepared statement's size may give more):
    /// a shared row another listed feed carries first is not shown (under 1 % of rows in the
    /// benchmark's store), and each costs one row of slack.
    static let oneStatementSlack = 4

    /// The page of `limit` entries after `after` (from the top when `nil`) in one statement, or
    /// `nil` when it cannot tell (see the type's notes). `repeats`: the listing's repeats when kept
    /// at ``changeNumber``; read by the statement otherwise.
    func oneStatementPage(after: StreamOrderKey?, limit: Int, repeats: Int?) async throws -> OneStatementPage? {
        guard
            let walk = try await oneStatementWalk(
                reverse: false, after: after, rows: limit + 1 + Self.oneStatementSlack, repeats: repeats)
        else { return nil }
        // Fewer than a page and one shown, with the stream going on: the slack went to hidden rows.
        guard walk.shown.count > limit || walk.reachedEnd else { return nil }
        return OneStatementPage(
            rows: walk.shown.prefix(limit), more: walk.shown.count > limit, changeNumber: walk.changeNumber,
            repeats: walk.repeats)
    }

    /// The placed entries of the listing after `after` (from the top when `nil`; from the bottom
    /// up with `reverse`), reading `rows` rows at most, in one statement; `nil` when the selection
    /// narrows, nothing is listed, `after` is a pending item's key, no row came back (an empty
    /// statement says nothing of the change number), or, walking up, items wait to be placed.
    ///
    /// With `search` (a words-only query's `tsquery`), the statement reads the rows the query
    /// matches: forward, every stored feed listed (`repeats` is not read then).
    func oneStatementWalk(
        reverse: Bool, after: StreamOrderKey?, rows wanted: Int, repeats: Int?, search: OneStatementSearch? = nil
    ) async throws -> OneStatementWalk? {
        guard search != nil || !selection.narrows, !ranked.isEmpty, after?.pending != 1 else { return nil }
        let filtered = ranked.count != sourceByFeed.count
        if search != nil, reverse || filtered || repeats == nil { return nil }
        // (A search's caller passes the repeats as 0: its total comes from sets.)
        var binds = PostgresBindings()
        binds.append(ranked)
        // From an end: a key beyond every placed one (no sort key is above +∞ or below −∞), so that
        // one statement serves both.
        let end =
            reverse
            ? StreamOrderKey(sortKey: -.infinity, rank: .max, position: .max, feed: "", id: "")
            : StreamOrderKey(sortKey: .infinity, rank: -1, position: .min, feed: "", id: "")
        Self.appendKey(after ?? end, pending: false, to: &binds)
        var rows: [PostgresRow] = []
        var asked = wanted
        if let search {
            guard let size = OneStatementRows.size(for: wanted) else { return nil }
            asked = size.rawValue
            binds.append(search.query)
            rows = try await size.rows(binds, search: true, on: db)
        } else if !reverse, !filtered, repeats != nil, let size = OneStatementRows.size(for: wanted) {
            asked = size.rawValue
            rows = try await size.rows(binds, on: db)
        } else {
            binds.append(Int64(wanted))
            let sql = Self.oneStatementSQL(filtered: filtered, repeats: repeats == nil, reverse: reverse, rows: nil)
            rows = try await db.rows(PostgresQuery(unsafeSQL: sql, binds: binds))
        }
        var batchRows: [BatchRow] = []
        var carriers: [String: StreamCarriers] = [:]
        var changeNumber: Int64?
        var pendingItems = true
        var counted = repeats
        for raw in rows {
            var columns = PostgresColumns(raw)
            let row = try BatchRow(&columns)
            changeNumber = try columns.next(Int64.self)
            pendingItems = try columns.next(Bool.self)
            let (feeds, positions, ids) = (
                try columns.next([String]?.self), try columns.next([Int64]?.self), try columns.next([String]?.self)
            )
            if repeats == nil { counted = Int(try columns.next(Int64.self)) }
            if row.shared, let feeds, let positions, let ids, carriers[row.dedupKey] == nil {
                for (feed, (position, id)) in zip(feeds, zip(positions, ids)) {
                    addCarrier(feed: feed, position: position, id: id, of: row.dedupKey, to: &carriers)
                }
            }
            batchRows.append(row)
        }
        guard let changeNumber, let counted else { return nil }
        // Items waiting to be placed are the bottom of the stream: a walk up from there starts with
        // them, which this statement does not read.
        if reverse, pendingItems { return nil }
        // The lateral join keeps each batch row once; its order is the plan's, so it is put back.
        batchRows.sort { reverse ? $1.key.precedes($0.key) : $0.key.precedes($1.key) }
        return OneStatementWalk(
            shown: entries(batchRows, carriers: carriers), reachedEnd: rows.count < asked && !pendingItems,
            changeNumber: changeNumber, repeats: counted)
    }

    /// The text of ``oneStatementWalk(reverse:after:rows:repeats:)``'s statement, its binds the
    /// listing (`$1`), the key it starts after (`$2`…`$6`) and, unless `rows` sets it, the rows to
    /// read (`$7`); with `repeats`, it counts the listing's repeats too. Its columns: the batch's
    /// (``BatchRow``), the change number, whether any item waits to be placed, the carriers of a
    /// shared row (feeds, positions, ids), and the repeats.
    ///
    /// With `search` (and `rows`), the batch is the rows the `tsquery` `$7` matches.
    static func oneStatementSQL(
        filtered: Bool, repeats: Bool, reverse: Bool = false, rows: Int?, search: Bool = false
    ) -> String {
        // The prepared forms (`rows` set) hide the key's bound from the planner: see ``OneStatementRows``.
        let batch = batchText(
            filtered: filtered, pending: false, reverse: reverse, after: true, candidates: false, boundHidden: rows != nil)
        let matching = search ? " AND COALESCE(item.search @@ $7::tsquery, FALSE)" : ""
        return """
            SELECT page.*, change.version, change.pending, carriers.feeds, carriers.positions, carriers.ids\(repeats ? ", counted.repeats" : "")
            FROM (SELECT \(columns) FROM item WHERE \(batch.conditions)\(matching) ORDER BY \(batch.order) LIMIT \(rows.map(String.init) ?? "$7")) AS page
            CROSS JOIN (
                SELECT COALESCE((SELECT version FROM store_change WHERE id = 1), 0)::bigint AS version,
                    EXISTS (SELECT 1 FROM item WHERE NOT staged AND sort_key IS NULL) AS pending
            ) AS change
            \(repeats ? "CROSS JOIN (\(repeatsStatement)) AS counted" : "")
            LEFT JOIN LATERAL (
                SELECT array_agg(carrier.feed) AS feeds, array_agg(carrier.feed_position) AS positions,
                    array_agg(carrier.id) AS ids
                FROM item AS carrier WHERE page.shared AND NOT carrier.staged AND carrier.dedup_key = page.dedup_key
            ) AS carriers ON true
            """
    }
}

/// The prepared forms of the statement of a page of every stored feed with the repeats kept (a
/// server's reads), one per batch size.
///
/// Parsing, analysing and planning the statement anew was a third of PostgreSQL's work for such a
/// page; prepared once per connection, each execution skips the parse and the analysis. Its row
/// count is written into the text, not bound: with `LIMIT $7` PostgreSQL's generic plan assumes a
/// tenth of the table and sorts it (60 ms where the custom plan takes 0.2). And the key's sort key
/// is read through a sub-select (`batchText`'s `boundHidden`): with it bound plainly, a custom
/// plan, which sees the bound, estimates most of the table below it, and the generic plan a third;
/// the generic plan then costs more (702 against 591 at 1,000,000 items), so PostgreSQL planned
/// every execution anew (`pg_prepared_statements`: 0 generic plans in 13), 0.4 ms of its 0.7 ms
/// a page. Both plans are the same index scan of `item_stream_order` from the key; hidden, the
/// bound gives them one estimate, and after five executions PostgreSQL keeps the generic plan
/// (planning 0.02 ms). A batch reads the smallest size that holds the page, its slack going to
/// rows hidden behind their carriers.
enum OneStatementRows: Int, CaseIterable {
    case rows32 = 32
    /// A page of 50 (the default, and what feed readers ask for) with its slack.
    case rows56 = 56
    case rows64 = 64
    case rows128 = 128
    case rows256 = 256

    /// The smallest size holding `wanted` rows, if any.
    static func size(for wanted: Int) -> Self? {
        allCases.first { $0.rawValue >= wanted }
    }

    /// The rows of the statement of this size with `binds` (the listing and the key, and with
    /// `search` the `tsquery`).
    func rows(_ binds: PostgresBindings, search: Bool = false, on db: PostgresConnection) async throws -> [PostgresRow] {
        if search { return try await rows(binds, of: OneStatementSearchPage.self, on: db) }
        return try await rows(binds, of: OneStatementStreamPage.self, on: db)
    }

    private func rows<Kind: OneStatementKind>(_ binds: PostgresBindings, of kind: Kind.Type, on db: PostgresConnection)
        async throws -> [PostgresRow]
    {
        switch self {
        case .rows32: try await Self.rows(of: OneStatementPageStatement<Rows32, Kind>(binds: binds), on: db)
        case .rows56: try await Self.rows(of: OneStatementPageStatement<Rows56, Kind>(binds: binds), on: db)
        case .rows64: try await Self.rows(of: OneStatementPageStatement<Rows64, Kind>(binds: binds), on: db)
        case .rows128: try await Self.rows(of: OneStatementPageStatement<Rows128, Kind>(binds: binds), on: db)
        case .rows256: try await Self.rows(of: OneStatementPageStatement<Rows256, Kind>(binds: binds), on: db)
        }
    }

    private static func rows<Size, Kind>(of statement: OneStatementPageStatement<Size, Kind>, on db: PostgresConnection)
        async throws -> [PostgresRow]
    {
        try await db.rows(of: statement, expecting: Size.rows.rawValue)
    }

    /// The statements' texts, by size, built once.
    fileprivate static let texts = Dictionary(
        uniqueKeysWithValues: allCases.map {
            ($0.rawValue, PostgresStreamScan.oneStatementSQL(filtered: false, repeats: false, rows: $0.rawValue))
        })

    /// The search statements' texts, by size, built once.
    fileprivate static let searchTexts = Dictionary(
        uniqueKeysWithValues: allCases.map {
            (
                $0.rawValue,
                PostgresStreamScan.oneStatementSQL(filtered: false, repeats: false, rows: $0.rawValue, search: true)
            )
        })
}

/// A words-only search read in one statement (``PostgresFeedStore``'s one-statement search page).
struct OneStatementSearch: Sendable {
    /// The rows a page should read at most at the matches' density (the page's rows times the
    /// stream's over the query's): sparser searches take the general read, which reads the GIN
    /// index's candidates when they are few. As the general read's walk, the statement is not
    /// bounded when the matches gather in one stretch of the stream. (A bound of 4,096 rows,
    /// tried first, made each page three times as slow: PostgreSQL then sorts every row of the
    /// window, its `tsvector` with it, before testing it.)
    static let expectedRows = 1_024

    /// The query, as the rows' `tsvector`s are tested (``PostgresSelectionDialect/rowQuery(_:)``).
    var query: String
}

/// A batch size of ``OneStatementPageStatement`` (a type, since a prepared statement's name and
/// text are static).
protocol OneStatementSize: Sendable {
    static var rows: OneStatementRows { get }
}

enum Rows32: OneStatementSize { static var rows: OneStatementRows { .rows32 } }
enum Rows56: OneStatementSize { static var rows: OneStatementRows { .rows56 } }
enum Rows64: OneStatementSize { static var rows: OneStatementRows { .rows64 } }
enum Rows128: OneStatementSize { static var rows: OneStatementRows { .rows128 } }
enum Rows256: OneStatementSize { static var rows: OneStatementRows { .rows256 } }

/// Which statement of ``OneStatementRows`` a prepared statement is: its name's prefix and its
/// texts by size.
protocol OneStatementKind: Sendable {
    static var prefix: String { get }
    static func text(rows: Int) -> String
}

/// The page of every stored feed.
enum OneStatementStreamPage: OneStatementKind {
    static var prefix: String { "feedagg_stream_page_" }
    static func text(rows: Int) -> String { OneStatementRows.texts[rows]! }
}

/// The page of a words-only search of every stored feed: the rows the `tsquery` `$7` matches.
enum OneStatementSearchPage: OneStatementKind {
    static var prefix: String { "feedagg_search_page_" }
    static func text(rows: Int) -> String { OneStatementRows.searchTexts[rows]! }
}

/// ``OneStatementRows``' statement of kind `Kind` reading `Size.rows` rows, prepared on each
/// connection the first time it runs there (PostgresNIO keeps the names it prepared per connection).
struct OneStatementPageStatement<Size: OneStatementSize, Kind: OneStatementKind>: PostgresPreparedStatement {
    static var name: String { Kind.prefix + "\(Size.rows.rawValue)" }
    static var sql: String { Kind.text(rows: Size.rows.rawValue) }
    typealias Row = PostgresRow

    var binds: PostgresBindings

    func makeBindings() throws -> PostgresBindings { binds }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

#endif
