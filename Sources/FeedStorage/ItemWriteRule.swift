package import FeedCore
import Foundation

/// What a stored item is, as a write compares an incoming version with it.
package struct StoredItemVersion: Sendable {
    /// The digest it was stored with.
    package var hash: Int64
    /// Its sort key (`nil`: not placed yet).
    package var sortKey: Double?
    /// Whether it has a date (`published` or `updated`).
    package var dated: Bool
    /// The pull that last saw it.
    package var seenPull: Int64
    /// Whether its raw JSON is not stored.
    package var rawMissing: Bool

    package init(hash: Int64, sortKey: Double?, dated: Bool, seenPull: Int64, rawMissing: Bool) {
        (self.hash, self.sortKey, self.dated, self.seenPull, self.rawMissing) = (hash, sortKey, dated, seenPull, rawMissing)
    }

    /// The sort key the item takes with the new version `item`: a dated item sorts by its (maybe
    /// new) date; an undated one keeps the place it was given, unless it was dated before (then it
    /// waits to be placed again).
    package func sortKey(after item: FeedItem) -> Double? {
        Self.sortKey(of: item, wasDated: dated, placedKey: sortKey)
    }

    /// ``sortKey(after:)`` of an item stored with `placedKey`, dated or not (`wasDated`).
    package static func sortKey(of item: FeedItem, wasDated: Bool, placedKey: Double?) -> Double? {
        item.sortDate?.timeIntervalSince1970 ?? (wasDated ? nil : placedKey)
    }
}

/// What a write does with one incoming item: the rule both engines apply, item by item (SQLite) or
/// for a whole page at once (PostgreSQL).
package enum ItemWrite: Equatable, Sendable {
    /// Not stored yet: insert it.
    case insert
    /// This pull already saw it (overlapping pages, or pages staged before a crash): its first
    /// occurrence wins.
    case skip
    /// The same content, kept as the store keeps it: only seen again.
    case unchanged
    /// Changed: write the new version, with this sort key.
    case update(sortKey: Double?)

    /// The write of `prepared` against its stored version (`nil`: none) by pull `pull`.
    ///
    /// The same content is the same digest, or, for an item that came without raw JSON (a `304`
    /// page rebuilt from the store), the same mapped fields (`storedFields`, asked only then). The
    /// stored JSON follows the store's retention: written when kept and missing, dropped when not
    /// kept (the first pull after `keep_raw` changes rewrites those rows once).
    package static func of(
        _ prepared: PreparedItem, stored: StoredItemVersion?, pull: Int64, keepRaw: Bool,
        storedFields: () throws -> FeedItem?
    ) rethrows -> ItemWrite {
        guard let stored else { return .insert }
        if stored.seenPull == pull { return .skip }
        let item = prepared.item
        var sameContent = stored.hash == prepared.hash
        if !sameContent && prepared.cameWithoutRaw, var fields = try storedFields() {
            var incoming = item
            fields.raw = nil
            incoming.raw = nil
            sameContent = fields == incoming
        }
        let retained = keepRaw ? !(stored.rawMissing && item.raw != nil) : stored.rawMissing
        return sameContent && retained ? .unchanged : .update(sortKey: stored.sortKey(after: item))
    }
}
