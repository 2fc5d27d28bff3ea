import Synchronization

/// One read at a time of each term's rows at one change number: the first asker reads, in its
/// own transaction and on its own connection, and the others wait for what it read (suspended,
/// holding no thread) instead of reading the same rows at once. After a change, a server's
/// concurrent searches for a frequent word (PostgreSQL: about 200 ms of heap reads at 1,000,000
/// items) would otherwise each read it.
///
/// The reader's rows are those of its snapshot, which has the same change number as a waiter's:
/// the same visible rows. A reader that fails hands its waiters `nil` (each then counts its own
/// way) and rethrows.
package final class SharedReads<Value: Sendable>: Sendable {
    private let waiting = Mutex<[String: [CheckedContinuation<Value?, Never>]]>([:])

    package init() {}

    /// `read()`'s value, read here or by the asker of `key` already reading it; `nil` when that
    /// asker's read failed or ended before this one waited (the caller then looks at its kept
    /// values again, or counts its own way).
    package func value(of key: String, _ read: () async throws -> Value?) async throws -> Value? {
        let reads = waiting.withLock { waiting in
            if waiting[key] != nil { return false }
            waiting[key] = []
            return true
        }
        guard reads else {
            return await withCheckedContinuation { continuation in
                let queued = waiting.withLock { waiting in
                    guard waiting[key] != nil else { return false }
                    waiting[key]!.append(continuation)
                    return true
                }
                if !queued { continuation.resume(returning: nil) }
            }
        }
        let value: Value?
        do {
            value = try await read()
        } catch {
            finish(key, with: nil)
            throw error
        }
        finish(key, with: value)
        return value
    }

    /// The askers waiting for the read of `key` (for the tests).
    package func waiters(of key: String) -> Int {
        waiting.withLock { $0[key]?.count ?? 0 }
    }

    private func finish(_ key: String, with value: Value?) {
        let waiters = waiting.withLock { $0.removeValue(forKey: key) ?? [] }
        for waiter in waiters { waiter.resume(returning: value) }
    }
}
