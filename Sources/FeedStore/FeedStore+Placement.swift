import FeedCore
import Foundation
import GRDB

/// Undated items get a persisted `sort_key` once, so that their place in the stream never moves:
/// see ``UndatedPlacement`` for the rule (shared with the PostgreSQL engine).
extension FeedStore {
    /// The gap between an undated item's key and its anchor's: small against the second-resolution
    /// timestamps of the APIs, large against a Double's resolution at today's epoch (~2.4e-7 s).
    static let epsilon = UndatedPlacement.epsilon

    /// Gives every unplaced undated item of the feeds in `feedOrder` its fixed sort key (see the
    /// rule above); returns how many were placed. Items of feeds not listed stay unplaced.
    @discardableResult
    public func placeUndatedItems(feedOrder: [String]) throws -> Int {
        try writing("place undated items") { db in try Self.placeUndated(feedOrder: feedOrder, in: db) }
    }

    static func placeUndated(feedOrder: [String], in db: Database) throws -> Int {
        let pending =
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM item WHERE sort_key IS NULL AND published IS NULL AND updated IS NULL AND staged = 0")
            ?? 0
        guard pending > 0 else { return 0 }

        var feeds: [(feed: String, rows: [UndatedPlacement.Row])] = []
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
                UndatedPlacement.Row(
                    id: try row.decode(String.self, forColumn: "id"),
                    dedupKey: try row.decode(String.self, forColumn: "dedup_key"),
                    sortKey: try row.decode(Double?.self, forColumn: "sort_key"),
                    dated: try row.decode(Bool.self, forColumn: "dated"))
            }
            feeds.append((feed, rows))
        }
        var placed = 0
        let update = try db.cachedStatement(sql: "UPDATE item SET sort_key = ? WHERE feed = ? AND id = ?")
        for placement in UndatedPlacement.placements(feeds) {
            try update.execute(arguments: [placement.sortKey, placement.feed, placement.id])
            placed += 1
        }
        if placed > 0 { try Schema.noteChange(in: db) }
        return placed
    }
}
