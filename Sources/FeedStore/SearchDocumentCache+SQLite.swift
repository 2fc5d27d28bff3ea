import FeedSearch
import FeedStorage
import GRDB

/// SQLite's reads of a search's sets (``SearchDocumentCache``): a term's rows are the FTS5
/// index's rowids (`item.doc`), read in order; the entry sets come from `item_shared` and
/// `item_staged`.
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
            for doc in try Int64.fetchAll(
                db.cachedStatement(sql: "SELECT doc FROM item INDEXED BY item_staged WHERE staged = 1 AND doc IS NOT NULL"))
            {
                builder.addStaged(doc: doc)
            }
            return builder.finish()
        }
    }

    /// The rows holding `term`, at change number `version` (which the read's snapshot has).
    func documents(_ db: Database, of term: SearchQuery.TextTerm, at version: Int64) throws -> DocumentSet {
        let expression = SQLiteSelectionDialect().indexQuery(.term(term))
        if let kept = terms.remembered(expression, at: version) { return kept }
        var keys: [Int64] = []
        let rows = try Int64.fetchCursor(
            db.cachedStatement(sql: "SELECT rowid FROM item_search WHERE item_search MATCH ? ORDER BY rowid"),
            arguments: [expression])
        while let key = try rows.next() { keys.append(key) }
        let set = DocumentSet(ascending: keys)
        if keys.count >= keptTermMinimum.load(ordering: .relaxed) { terms.remember(set, of: expression, at: version) }
        return set
    }
}
