import FeedSearch

/// `total_items` of a narrowed read, as one statement either engine runs: the entries the
/// selection shows, counted without walking the store where the full-text index bounds them.
///
/// Entries are counted in two parts. Unshared rows are entries of their own: counted among the
/// index's candidates (``SelectionBound/within(_:)``), or as every visible unshared row minus
/// those that fail among the index's candidates (``SelectionBound/outside(_:)``), or by a scan
/// (``SelectionBound/unbounded``: a query of dates, feeds or sources only). Shared rows (a dedup
/// key several rows carry, the `item_shared` index) are grouped by key: the first kept carrier in
/// listing order (rank, position, id) is the entry's shown copy, counted when it matches.
package enum SelectionCount {
    /// The statement and its binds; `listing` is the listed feeds in rank order.
    package static func statement<Dialect: SelectionDialect>(
        _ dialect: Dialect, listing: [String], sourceByFeed: [String: String], selection: StreamSelection
    ) -> (sql: String, binds: [SQLBind]) {
        var sql = SelectionSQL(dialect, listed: listing, sourceByFeed: sourceByFeed, selection: selection)
        // Nothing can match (a feed or source not listed, a rule keeping only such): no statement
        // with a constant false, which SQLite refuses with the partial index it is told to use.
        if sql.shown("item") == .never { return ("SELECT 0 AS total", []) }
        let listed = sql.bind(.texts(listing))
        let inListing = { (alias: String) in dialect.list(listed, contains: "\(alias).feed") }
        let unshared = { (alias: String) in
            "\(dialect.visible(alias)) AND NOT \(dialect.shared(alias)) AND \(inListing(alias))"
        }
        let unsharedPart: String
        // Shared rows whose key may have a matching shown copy: with the index's few candidates,
        // only the keys of shared candidates.
        var sharedKeys = ""
        switch SelectionBound(selection, feeds: listing) {
        case .within(let set):
            if set.isEmpty {
                unsharedPart = "0"
                sharedKeys = " AND \(dialect.falseLiteral)"
            } else {
                let placeholder = sql.bind(.text(dialect.indexQuery(set)))
                sharedKeys = """
                     AND item.dedup_key IN (SELECT candidate.dedup_key FROM \(dialect.sharedRows("candidate")) \
                    WHERE \(dialect.visible("candidate")) AND \(dialect.shared("candidate")) \
                    AND \(dialect.text(of: "candidate", matching: placeholder, asSet: true)))
                    """
                let candidates = dialect.text(of: "item", matching: sql.bind(.text(dialect.indexQuery(set))), asSet: true)
                let shown = sql.shown("item", asSet: true).text(dialect)
                unsharedPart = "(SELECT COUNT(*) FROM item WHERE \(candidates) AND \(unshared("item")) AND \(shown))"
            }
        case .outside(let set):
            var part = """
                (SELECT COALESCE(SUM(visible_items), 0) FROM feed WHERE \(dialect.list(listed, contains: "feed.name"))) \
                - (SELECT COUNT(*) FROM \(dialect.sharedRows("item")) \
                WHERE \(dialect.visible("item")) AND \(dialect.shared("item")) AND \(inListing("item")))
                """
            if !set.isEmpty {
                let candidates = dialect.text(of: "item", matching: sql.bind(.text(dialect.indexQuery(set))), asSet: true)
                let shown = sql.shown("item", asSet: true).text(dialect)
                part += " - (SELECT COUNT(*) FROM item WHERE \(candidates) AND \(unshared("item")) AND NOT (\(shown)))"
            }
            unsharedPart = "(\(part))"
        case .unbounded:
            let shown = sql.shown("item", asSet: true).text(dialect)
            unsharedPart = "(SELECT COUNT(*) FROM item WHERE \(unshared("item")) AND \(shown))"
        }
        let kept = sql.kept("item", asSet: true).map { " AND \($0)" } ?? ""
        let matches =
            sql.condition(selection.query, alias: "item", entry: true, asSet: true).text(dialect)
        let sharedPart = """
            (SELECT COUNT(*) FROM (
                SELECT matched, ROW_NUMBER() OVER (PARTITION BY dedup_key ORDER BY listing_rank, feed_position, id) AS place
                FROM (
                    SELECT item.dedup_key, item.feed_position, item.id, \(dialect.rank(of: "item", listing: listed)) AS listing_rank,
                        CASE WHEN \(matches) THEN 1 ELSE 0 END AS matched
                    FROM \(dialect.sharedRows("item"))
                    WHERE \(dialect.visible("item")) AND \(dialect.shared("item")) AND \(inListing("item"))\(kept)\(sharedKeys)
                ) AS carrier
            ) AS ranked WHERE place = 1 AND matched = 1)
            """
        let with = dialect.listingTable(listed).map { "\($0) " } ?? ""
        // `SUM` of a PostgreSQL `bigint` is `numeric`: the total is cast back.
        return sql.finish("\(with)SELECT CAST(\(unsharedPart) + \(sharedPart) AS BIGINT) AS total")
    }
}
