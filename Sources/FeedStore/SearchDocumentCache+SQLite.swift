import FeedSearch
import FeedStorage
import GRDB

/// SQLite's reads of a search's sets (``SearchDocumentCache``): a term's rows are the FTS5
/// index's rowids (`item.doc`) of visible rows, read in order; the entry sets come from
/// `item_shared`.
extension SearchDocumentCache {
    /// The entry sets of `listing` (every stored feed) at its change number: kept, or read.
    func entries(_ db: Database, listing: StreamListing) throws -> EntryDocuments {
        try entries.value(of: listing.ranked, at: listing.changeVersion) {
            var builder = EntryDocuments.Builder(rankByFeed: listing.rankByFeed)
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT dedup_key, feed, feed_position, id, doc FROM item INDEXED BY item_shared
                        WHERE shared = 1 AND staged = 0 ORDER BY dedup_key
                        """))
            while let row = try rows.next() {
                builder.add(
                    dedupKey: try row.decode(String.self, atIndex: 0), feed: try row.decode(String.self, atIndex: 1),
                    position: try row.decode(Int64.self, atIndex: 2), id: try row.decode(String.self, atIndex: 3),
                    doc: try row.decode(Int64.self, atIndex: 4))
            }
            return builder.finish()
        }
    }

    /// The visible rows holding `term`, at change number `version` (which the read's snapshot
    /// has). FTS5 indexes the staged rows too; those of the snapshot are left out (usually none:
    /// `item_staged` holds only a pull in progress).
    func documents(_ db: Database, of term: SearchQuery.TextTerm, at version: Int64) throws -> DocumentSet {
        let expression = SQLiteSelectionDialect().indexQuery(.term(term))
        if let kept = terms.remembered(expression, at: version) { return kept }
        var keys: [Int64] = []
        let rows = try Int64.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT rowid FROM item_search WHERE item_search MATCH ?
                    AND rowid NOT IN (SELECT doc FROM item INDEXED BY item_staged WHERE staged = 1 AND doc IS NOT NULL)
                    ORDER BY rowid
                    """),
            arguments: [expression])
        while let key = try rows.next() { keys.append(key) }
        let set = DocumentSet(ascending: keys)
        if keys.count >= keptTermMinimum.load(ordering: .relaxed) { terms.remember(set, of: expression, at: version) }
        return set
    }
}
