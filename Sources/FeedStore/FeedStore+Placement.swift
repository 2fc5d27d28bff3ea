import FeedCore
import Foundation
import GRDB

/// Undated items get a persisted `sort_key` once, so that their place in the stream never moves.
///
/// The rule: the feeds of `feedOrder` are merged exactly as ``UnifiedStream/merge(_:)`` merges them
/// (dated items by their sort key, undated ones — placed or not — spread through them). Each undated
/// item not placed yet takes the key of the dated entry it lands after, minus ``epsilon`` (or the
/// first dated entry's key plus ``epsilon`` when it lands before every dated entry). Undated items of
/// several feeds that land in one slot share a key, so the stream's tiebreak (feed order, then
/// feed position) keeps them in feed order, then wire order, as the merge does. The key is then
/// fixed: later pulls move neither the item nor the cursor positions around it.
///
/// Limits: an item stays unplaced (listed after every placed item, in feed order) while the store has
/// no dated item; and when the dated items on both sides of a slot share one timestamp, no key fits
/// between them and the undated item sorts after both.
extension FeedStore {
    /// The gap between an undated item's key and its anchor's: small against the second-resolution
    /// timestamps of the APIs, large against a Double's resolution at today's epoch (~2.4e-7 s).
    static let epsilon = 1.0e-4

    /// Gives every unplaced undated item of the feeds in `feedOrder` its fixed sort key (see the
    /// rule above); returns how many were placed. Items of feeds not listed stay unplaced.
    @discardableResult
    public func placeUndatedItems(feedOrder: [String]) throws -> Int {
        try writing("place undated items") { db in try Self.placeUndated(feedOrder: feedOrder, in: db) }
    }

    private struct LightRow {
        var id: String
        var dedupKey: String
        var sortKey: Double?
        var dated: Bool
    }

    static func placeUndated(feedOrder: [String], in db: Database) throws -> Int {
        let pending =
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM item WHERE sort_key IS NULL AND published IS NULL AND updated IS NULL AND staged = 0")
            ?? 0
        guard pending > 0 else { return 0 }

        var inputs: [UnifiedStream.Input] = []
        // feed → dedup key → the feed's first row carrying it (merge keeps the first occurrence).
        var firstRows: [String: [String: LightRow]] = [:]
        var pendingRows: [(feed: String, row: LightRow)] = []
        var listed = Set<String>()
        for feed in feedOrder where listed.insert(feed).inserted {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, dedup_key, sort_key, (published IS NOT NULL OR updated IS NOT NULL) AS dated
                    FROM item WHERE feed = ? AND staged = 0 ORDER BY feed_position, id
                    """,
                arguments: [feed]
            ).map { row in
                LightRow(
                    id: try row.decode(String.self, forColumn: "id"),
                    dedupKey: try row.decode(String.self, forColumn: "dedup_key"),
                    sortKey: try row.decode(Double?.self, forColumn: "sort_key"),
                    dated: try row.decode(Bool.self, forColumn: "dated"))
            }
            var first: [String: LightRow] = [:]
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
        guard !pendingRows.isEmpty else { return 0 }

        let merged = UnifiedStream.merge(inputs)
        let shown: [LightRow] = merged.compactMap { firstRows[$0.feed]?[$0.item.id] }
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

        var placed = 0
        let update = try db.cachedStatement(sql: "UPDATE item SET sort_key = ? WHERE feed = ? AND id = ?")
        for (feed, row) in pendingRows {
            guard let key = keyByDedup[row.dedupKey] else { continue }
            try update.execute(arguments: [key, feed, row.id])
            placed += 1
        }
        return placed
    }
}
