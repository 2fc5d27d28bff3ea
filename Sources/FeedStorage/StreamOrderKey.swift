/// A position in stream order: (placed first, sort key descending, feed rank, feed position, feed,
/// id), compared as SQLite compares the same values (text by its UTF-8 bytes; PostgreSQL's
/// `COLLATE "C"` columns order the same way). Both engines walk the stream in this order.
package struct StreamOrderKey: Sendable, Hashable {
    /// 1 for an item not placed yet (listed after every placed one), else 0.
    package var pending: Int
    /// The sort key, negated (so that ascending order is the stream's); 0 when pending.
    package var negatedKey: Double
    /// The feed's rank in the listing.
    package var rank: Int
    /// The item's feed position.
    package var position: Int64
    /// Feed name.
    package var feed: String
    /// Item id.
    package var id: String

    /// The key of an entry.
    package init(pending: Int, negatedKey: Double, rank: Int, position: Int64, feed: String, id: String) {
        (self.pending, self.negatedKey, self.rank, self.position, self.feed, self.id) =
            (pending, negatedKey, rank, position, feed, id)
    }

    /// The key of an item with sort key `sortKey` (`nil`: not placed yet).
    package init(sortKey: Double?, rank: Int, position: Int64, feed: String, id: String) {
        self.init(
            pending: sortKey == nil ? 1 : 0, negatedKey: -(sortKey ?? 0), rank: rank, position: position, feed: feed, id: id)
    }

    /// The key a cursor stands at.
    package init(_ cursor: StreamCursor) {
        self.init(
            pending: cursor.position.p, negatedKey: -cursor.sortKey, rank: cursor.position.r, position: cursor.position.n,
            feed: cursor.position.f, id: cursor.position.i)
    }

    /// The sort key (`nil` when pending).
    package var sortKey: Double? { pending == 1 ? nil : -negatedKey }

    /// Whether `self` comes strictly before `other`.
    package func precedes(_ other: StreamOrderKey) -> Bool {
        if pending != other.pending { return pending < other.pending }
        if negatedKey != other.negatedKey { return negatedKey < other.negatedKey }
        if rank != other.rank { return rank < other.rank }
        if position != other.position { return position < other.position }
        if feed != other.feed { return feed.utf8.lexicographicallyPrecedes(other.feed.utf8) }
        return id.utf8.lexicographicallyPrecedes(other.id.utf8)
    }

    /// The cursor token of a page ending at this entry.
    package func cursor() throws -> String {
        let position = StreamCursor.Position(
            v: 1, p: pending, k: String((sortKey ?? 0).bitPattern, radix: 16), r: rank, n: position, f: feed, i: id)
        return try StreamCursor(position: position).token
    }
}

/// The rows of the listed feeds carrying one dedup key, and what the stream makes of them: the
/// first (lowest rank, then feed position, then id) is shown, listing every carrying feed in rank
/// order; the others are shadowed.
package struct StreamCarriers: Sendable {
    /// One listed row carrying the key.
    package struct Carrier: Sendable {
        package var feed: String
        package var rank: Int
        package var position: Int64
        package var id: String

        package init(feed: String, rank: Int, position: Int64, id: String) {
            (self.feed, self.rank, self.position, self.id) = (feed, rank, position, id)
        }
    }

    /// The listed rows carrying the key (any order).
    package var carriers: [Carrier] = []

    package init() {}

    /// Adds a listed carrier.
    package mutating func append(_ carrier: Carrier) { carriers.append(carrier) }

    /// The row the stream shows for the key.
    package var first: Carrier? {
        carriers.min { a, b in
            if a.rank != b.rank { return a.rank < b.rank }
            if a.position != b.position { return a.position < b.position }
            return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
        }
    }

    /// Whether the row `feed`/`id` is the one shown.
    package func shows(feed: String, id: String) -> Bool {
        guard let first else { return true }
        return first.feed == feed && first.id == id
    }

    /// Every carrying feed, once each, in rank order.
    package var feeds: [String] {
        var feeds: [String] = []
        for carrier in carriers.sorted(by: { $0.rank < $1.rank }) where feeds.last != carrier.feed {
            feeds.append(carrier.feed)
        }
        return feeds
    }
}
