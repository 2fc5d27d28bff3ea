import Synchronization

/// Values that change only when the store's change number (``StoreDriver/changeVersion()``)
/// moves, kept by key until it does: the repeated entries of a listing (``StreamRepeatsCache``),
/// the `total_items` of a read (``StreamTotalsCache``), and on SQLite the listing a read resolves.
///
/// Counting the repeats is a pass over every shared item (`COUNT(*) - COUNT(DISTINCT dedup_key)`):
/// about 2 ms at 1,000,000 items on SQLite, and the largest part of a page after a cursor. A
/// search's total counts its matches: about 20 ms on SQLite and 250 ms on PostgreSQL for a word
/// in a fifth of 1,000,000 items, on every page of it. Each changes only when a commit, a
/// placement, a deletion or a prune moves the change number, so a read that finds the number it
/// was counted at reuses it. Both engines read the change number before the count (in the same
/// snapshot on SQLite), so a value is never used past a change.
package final class StoreChangeCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var version: Int64
        var value: Value
    }

    private let entries = Mutex<[Key: Entry]>([:])
    /// Keys remembered at most (a server has one per combination of `feed=`/`source=`/`q=` asked).
    package let capacity: Int

    package init(capacity: Int = 256) {
        self.capacity = capacity
    }

    /// The value of `key` at change number `version`: remembered, or made by `make` and remembered.
    package func value(of key: Key, at version: Int64, make: () throws -> Value) rethrows -> Value {
        if let known = remembered(key, at: version) { return known }
        return remember(try make(), of: key, at: version)
    }

    /// The async form of ``value(of:at:make:)``.
    package func value(of key: Key, at version: Int64, make: () async throws -> Value) async rethrows -> Value {
        if let known = remembered(key, at: version) { return known }
        return remember(try await make(), of: key, at: version)
    }

    /// The value of `key` kept at change number `version`, if any.
    package func remembered(_ key: Key, at version: Int64) -> Value? {
        entries.withLock { entries in entries[key].flatMap { $0.version == version ? $0.value : nil } }
    }

    /// Keeps `value` as `key`'s at change number `version`, and returns it.
    @discardableResult
    package func remember(_ value: Value, of key: Key, at version: Int64) -> Value {
        entries.withLock { entries in
            if entries.count >= capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(version: version, value: value)
        }
        return value
    }
}

extension StoreChangeCache where Value == Int {
    /// ``value(of:at:make:)`` of a count.
    package func count(of key: Key, at version: Int64, count: () throws -> Int) rethrows -> Int {
        try value(of: key, at: version, make: count)
    }

    /// The async form of ``count(of:at:count:)``.
    package func count(of key: Key, at version: Int64, count: () async throws -> Int) async rethrows -> Int {
        try await value(of: key, at: version, make: count)
    }
}

/// The repeated entries of each listing (the listed feeds in rank order): shared items beyond the
/// first of each dedup key, which `total_items` subtracts from the feeds' visible counts.
package typealias StreamRepeatsCache = StoreChangeCache<[String], Int>

/// A read's `total_items`, by listing and selection. Only selections whose matches move with the
/// store alone are kept (``StreamSelection/isFixedBetweenChanges``).
package typealias StreamTotalsCache = StoreChangeCache<StreamTotalsKey, Int>

/// What a narrowed read's `total_items` depends on besides the store.
package struct StreamTotalsKey: Hashable, Sendable {
    /// The listed feeds, in rank order.
    package var listing: [String]
    package var selection: StreamSelection

    package init(listing: [String], selection: StreamSelection) {
        self.listing = listing
        self.selection = selection
    }
}
