import FeedCore
import Foundation

/// The engine-independent half of undated items' placement: given each listed feed's visible items
/// (in feed position order), the fixed sort key every unplaced undated item gets.
///
/// The rule: the feeds are merged exactly as ``UnifiedStream/merge(_:)`` merges them (dated items by
/// their sort key, undated ones — placed or not — spread through them). Each undated item not placed
/// yet takes the key of the dated entry it lands after, minus ``epsilon`` (or the first dated entry's
/// key plus ``epsilon`` when it lands before every dated entry). Undated items of several feeds that
/// land in one slot share a key, so the stream's tiebreak (feed order, then feed position) keeps them
/// in feed order, then wire order, as the merge does. The key is then fixed: later pulls move neither
/// the item nor the cursor positions around it.
///
/// Limits: an item stays unplaced (listed after every placed item, in feed order) while the store has
/// no dated item; and when the dated items on both sides of a slot share one timestamp, no key fits
/// between them and the undated item sorts after both.
public enum UndatedPlacement {
    /// The gap between an undated item's key and its anchor's: small against the second-resolution
    /// timestamps of the APIs, large against a Double's resolution at today's epoch (~2.4e-7 s).
    public static let epsilon = 1.0e-4

    /// One visible item as placement reads it.
    public struct Row: Sendable {
        /// The item id.
        public var id: String
        /// Its dedup key.
        public var dedupKey: String
        /// Its stored sort key (`nil`: not placed yet).
        public var sortKey: Double?
        /// Whether it has a date (`published` or `updated`).
        public var dated: Bool

        /// Creates a row.
        public init(id: String, dedupKey: String, sortKey: Double?, dated: Bool) {
            self.id = id
            self.dedupKey = dedupKey
            self.sortKey = sortKey
            self.dated = dated
        }
    }

    /// One key to write: item `id` of `feed` gets `sortKey`.
    public struct Placement: Sendable, Hashable {
        /// The feed.
        public var feed: String
        /// The item id.
        public var id: String
        /// The key it is given.
        public var sortKey: Double
    }

    /// The keys of the unplaced undated items among `feeds` (in declaration order, each feed once,
    /// its visible rows ordered by feed position then id). Items that find no place (no dated item
    /// anywhere) are left out.
    public static func placements(_ feeds: [(feed: String, rows: [Row])]) -> [Placement] {
        var inputs: [UnifiedStream.Input] = []
        // feed → dedup key → the feed's first row carrying it (merge keeps the first occurrence).
        var firstRows: [String: [String: Row]] = [:]
        var pendingRows: [(feed: String, row: Row)] = []
        for (feed, rows) in feeds {
            var first: [String: Row] = [:]
            var items: [FeedItem] = []
            for row in rows {
                if !row.dated && row.sortKey == nil { pendingRows.append((feed, row)) }
                guard first[row.dedupKey] == nil else { continue }
                first[row.dedupKey] = row
                // The dedup key stands in for the id (with no URL, merge dedups by id), so merge
                // dedups exactly as the stored keys say; the date only has to order like the key.
                let date = row.dated ? row.sortKey.map { Date(timeIntervalSince1970: $0) } : nil
                items.append(FeedItem(id: row.dedupKey, title: "", updated: date))
            }
            firstRows[feed] = first
            inputs.append(UnifiedStream.Input(feed: feed, source: "", items: items))
        }
        guard !pendingRows.isEmpty else { return [] }

        let merged = UnifiedStream.merge(inputs)
        let shown: [Row] = merged.compactMap { firstRows[$0.feed]?[$0.item.id] }
        // nextDated[i]: the key of the first dated entry at or after i.
        var nextDated = [Double?](repeating: nil, count: shown.count + 1)
        for index in shown.indices.reversed() {
            nextDated[index] = shown[index].dated ? shown[index].sortKey : nextDated[index + 1]
        }
        let firstDated = nextDated[0]
        var keyByDedup: [String: Double] = [:]
        var previousDated: Double?
        for (index, row) in shown.enumerated() {
            if row.dated {
                previousDated = row.sortKey
                if let key = row.sortKey { keyByDedup[row.dedupKey] = key }
                continue
            }
            if let placed = row.sortKey {
                keyByDedup[row.dedupKey] = placed
            } else if let anchor = previousDated {
                var key = anchor - epsilon
                if let next = nextDated[index + 1], key <= next {
                    key = next < anchor ? anchor - (anchor - next) / 2 : anchor
                }
                keyByDedup[row.dedupKey] = key
            } else if let first = firstDated {
                keyByDedup[row.dedupKey] = first + epsilon
            }
        }
        return pendingRows.compactMap { feed, row in
            keyByDedup[row.dedupKey].map { Placement(feed: feed, id: row.id, sortKey: $0) }
        }
    }
}
