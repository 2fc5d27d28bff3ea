import Synchronization

/// The number of repeated entries of a listing — shared items beyond the first of each dedup key
/// among the listed feeds, which `total_items` subtracts from the feeds' visible counts — kept
/// per listing until the store's change number (``StoreDriver/changeVersion()``) moves.
///
/// Counting them is a pass over every shared item (`COUNT(*) - COUNT(DISTINCT dedup_key)`): about
/// 2 ms at 1,000,000 items on SQLite, and the largest part of a page after a cursor. The number
/// changes only when a commit, a placement, a deletion or a prune moves the change number, so a
/// read that finds the number it was counted at reuses it. Both engines read the change number
/// in the same snapshot as the rest of the page, so a count is never used past a change.
package final class StreamRepeatsCache: Sendable {
    private struct Entry {
        var version: Int64
        var repeats: Int
    }

    private let entries = Mutex<[[String]: Entry]>([:])
    /// Listings remembered at most (a server has one per combination of `feed=`/`source=` asked).
    package let capacity: Int

    package init(capacity: Int = 256) {
        self.capacity = capacity
    }

    /// The repeats of the listing `ranked` at change number `version`: remembered, or counted by
    /// `count` and remembered.
    package func repeats(of ranked: [String], at version: Int64, count: () throws -> Int) rethrows -> Int {
        if let repeats = remembered(ranked, at: version) { return repeats }
        return remember(try count(), of: ranked, at: version)
    }

    /// The async form of ``repeats(of:at:count:)``.
    package func repeats(of ranked: [String], at version: Int64, count: () async throws -> Int) async rethrows -> Int {
        if let repeats = remembered(ranked, at: version) { return repeats }
        return remember(try await count(), of: ranked, at: version)
    }

    private func remembered(_ ranked: [String], at version: Int64) -> Int? {
        entries.withLock { entries in entries[ranked].flatMap { $0.version == version ? $0.repeats : nil } }
    }

    private func remember(_ repeats: Int, of ranked: [String], at version: Int64) -> Int {
        entries.withLock { entries in
            if entries.count >= capacity, entries[ranked] == nil { entries.removeAll(keepingCapacity: true) }
            entries[ranked] = Entry(version: version, repeats: repeats)
        }
        return repeats
    }
}
