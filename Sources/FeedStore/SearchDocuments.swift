import FeedSearch
import FeedStorage
import GRDB
import Synchronization

/// The sets a search's count is made of, kept until the store changes: each frequent term's rows
/// (the FTS5 index's rowids, `item.doc`) and which rows are entries of their own.
///
/// A count of a words-only query was FTS5's own count plus a correction for the shared rows: at
/// 1,000,000 items, `swift OR rust` took 8 ms in FTS5 (it decodes every entry of both words'
/// lists, for every request) and 14 ms in the correction. A server answering many different
/// searches sees the same frequent words again and again: each word's rows are read once per
/// change of the store, and a count is then set arithmetic over bitmaps (tens of microseconds),
/// with only the rare words of each query read from the index.
final class SearchDocuments: Sendable {
    /// A term's rows are kept from this many on; fewer cost less to read again than to keep, and
    /// a rare word of every query would otherwise push the frequent ones out. Tests lower it to
    /// keep every term.
    let keptTermMinimum = Atomic<Int>(4_096)

    /// The frequent terms' rows, by FTS5 expression: at most 32 (a bitmap of a 1,000,000-item
    /// store is 125 KB, so 4 MB).
    let terms = StoreChangeCache<String, DocumentSet>(capacity: 32)
    /// The entries' sets of each listing (in rank order).
    let entries = StoreChangeCache<[String], EntryDocuments>(capacity: 8)

    /// The entry sets of `listing` (every stored feed) at its change number: kept, or read.
    func entries(_ db: Database, listing: StreamListing) throws -> EntryDocuments {
        try entries.value(of: listing.ranked, at: listing.changeVersion) {
            try EntryDocuments(db, rankByFeed: listing.rankByFeed)
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

/// Which rows of the full-text index are entries of the stream, for one listing of every stored
/// feed: all of them except the shared rows (a dedup key several rows carry: one entry per key)
/// and the staged rows (written by a pull in progress, not shown yet), plus, of each shared key,
/// the copy the stream shows (the first carrier in listing order: rank, position, id).
///
/// A query's count is then `|M| - |M ∩ notOwn| + |M ∩ shown|` for its rows `M`.
struct EntryDocuments: Sendable {
    /// The shared rows and the staged rows.
    var notOwn: DocumentSet
    /// Of each shared dedup key, the row the stream shows.
    var shown: DocumentSet

    /// The sets of the listing whose ranks are `rankByFeed` (every stored feed), read from the
    /// `item_shared` and `item_staged` indexes.
    init(_ db: Database, rankByFeed: [String: Int]) throws {
        var notOwn: [Int64] = []
        var shown: [Int64] = []
        // Of the key being read: its best carrier so far (rank, position, id, doc).
        var key: String?
        var best: (rank: Int, position: Int64, id: String, doc: Int64)?
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT dedup_key, feed, feed_position, id, doc FROM item INDEXED BY item_shared
                    WHERE shared = 1 AND staged = 0 ORDER BY dedup_key
                    """))
        while let row = try rows.next() {
            let dedupKey: String = try row.decode(String.self, atIndex: 0)
            let feed: String = try row.decode(String.self, atIndex: 1)
            let position: Int64 = try row.decode(Int64.self, atIndex: 2)
            let id: String = try row.decode(String.self, atIndex: 3)
            let doc: Int64 = try row.decode(Int64.self, atIndex: 4)
            notOwn.append(doc)
            if dedupKey != key {
                if let best { shown.append(best.doc) }
                (key, best) = (dedupKey, nil)
            }
            // Every stored feed of the read's snapshot is listed (the caller's condition).
            let rank = rankByFeed[feed] ?? Int.max
            if let current = best,
                (current.rank, current.position) < (rank, position)
                    || ((current.rank, current.position) == (rank, position) && !id.utf8.lexicographicallyPrecedes(current.id.utf8))
            {
                continue
            }
            best = (rank, position, id, doc)
        }
        if let best { shown.append(best.doc) }
        for doc in try Int64.fetchAll(db.cachedStatement(sql: "SELECT doc FROM item INDEXED BY item_staged WHERE staged = 1 AND doc IS NOT NULL")) {
            notOwn.append(doc)
        }
        notOwn.sort()
        shown.sort()
        self.notOwn = DocumentSet(ascending: Self.unique(notOwn))
        self.shown = DocumentSet(ascending: shown)
    }

    /// The entries among the rows `matches`.
    func count(_ matches: DocumentSet) -> Int {
        matches.count - matches.intersectionCount(notOwn) + matches.intersectionCount(shown)
    }

    /// `sorted` without repeats.
    private static func unique(_ sorted: [Int64]) -> [Int64] {
        var result: [Int64] = []
        result.reserveCapacity(sorted.count)
        for key in sorted where result.last != key { result.append(key) }
        return result
    }
}
