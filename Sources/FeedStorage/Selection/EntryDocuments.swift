/// Which visible rows of the full-text index are entries of the stream, for one listing of every
/// stored feed: all of them except the shared rows (a dedup key several rows carry: one entry per
/// key), plus, of each shared key, the copy the stream shows (the first carrier in listing order:
/// rank, position, id).
///
/// A query's count is then `|M| - |M ∩ notOwn| + |M ∩ shown|` for its visible rows `M`. Staged
/// rows (written by a pull in progress) are in neither `M` nor these sets: both are read once per
/// change number, and staged rows come and go without moving it, so sets read in two snapshots of
/// one change number agree only on the visible rows.
package struct EntryDocuments: Sendable {
    /// The shared visible rows.
    package private(set) var notOwn: DocumentSet
    /// Of each shared dedup key, the row the stream shows.
    package private(set) var shown: DocumentSet

    /// The entries among the rows `matches`.
    package func count(_ matches: DocumentSet) -> Int {
        matches.count - matches.intersectionCount(notOwn) + matches.intersectionCount(shown)
    }

    /// Makes the sets from an engine's rows: the shared visible rows ordered by dedup key, each
    /// added with ``add(dedupKey:feed:position:id:doc:)``.
    package struct Builder {
        /// Every stored feed's rank in the listing.
        private let rankByFeed: [String: Int]
        private var notOwn: [Int64] = []
        private var shown: [Int64] = []
        /// Of the key being read: its best carrier so far (rank, position, id, doc).
        private var key: String?
        private var best: (rank: Int, position: Int64, id: String, doc: Int64)?

        package init(rankByFeed: [String: Int]) {
            self.rankByFeed = rankByFeed
        }

        /// A shared visible row; rows come ordered by dedup key.
        package mutating func add(dedupKey: String, feed: String, position: Int64, id: String, doc: Int64) {
            notOwn.append(doc)
            if dedupKey != key {
                if let best { shown.append(best.doc) }
                (key, best) = (dedupKey, nil)
            }
            // Every stored feed of the read's snapshot is listed (the caller's condition).
            let rank = rankByFeed[feed] ?? Int.max
            if let current = best,
                (current.rank, current.position) < (rank, position)
                    || ((current.rank, current.position) == (rank, position)
                        && !id.utf8.lexicographicallyPrecedes(current.id.utf8))
            {
                return
            }
            best = (rank, position, id, doc)
        }

        /// The sets.
        package consuming func finish() -> EntryDocuments {
            if let best { shown.append(best.doc) }
            notOwn.sort()
            shown.sort()
            return EntryDocuments(notOwn: DocumentSet(ascending: notOwn), shown: DocumentSet(ascending: shown))
        }
    }
}
