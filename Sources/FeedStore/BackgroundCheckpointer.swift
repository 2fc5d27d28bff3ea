import Foundation
import GRDB

/// Copies the write-ahead log into the database file on a thread of its own while a pull writes.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold, i.e. on the
/// single writer every feed's pages queue behind; a pull of 5,000 repositories met a dozen of them
/// (each with its `fsync`s). Here the writer's automatic checkpoint is only a backstop (every
/// ``FeedStore/autocheckpointPages`` pages), and this checkpointer runs a `PASSIVE` checkpoint on
/// its own connection after every ``threshold`` bytes written, concurrently with the writer (a
/// passive checkpoint never blocks or waits for it). Checkpoints are an optimisation: a failed
/// one is ignored, the log stays valid and the backstop still bounds it.
final class BackgroundCheckpointer: @unchecked Sendable {
    /// Bytes written between two checkpoints.
    static let threshold = 4 << 20

    private let path: String
    private let queue = DispatchQueue(label: "feedagg.store.checkpoint", qos: .utility)
    private let lock = NSLock()
    /// Bytes written since the last checkpoint was scheduled.
    private var pending = 0
    private var scheduled = false
    private var closed = false
    /// Only touched on `queue`.
    private var connection: DatabaseQueue?

    init(path: String) {
        self.path = path
    }

    /// Notes that about `bytes` were committed; schedules a checkpoint past the threshold.
    func wrote(bytes: Int) {
        let start = lock.withLock { () -> Bool in
            pending += bytes
            guard !closed, !scheduled, pending >= Self.threshold else { return false }
            pending = 0
            scheduled = true
            return true
        }
        if start { queue.async { self.checkpoint() } }
    }

    private func checkpoint() {
        checkpointNow()
        let again = lock.withLock { () -> Bool in
            scheduled = false
            guard !closed, pending >= Self.threshold else { return false }
            pending = 0
            scheduled = true
            return true
        }
        if again { queue.async { self.checkpoint() } }
    }

    /// One passive checkpoint, on `queue`.
    private func checkpointNow() {
        do {
            if connection == nil {
                var configuration = Configuration()
                configuration.label = "feedagg.store.checkpointer"
                configuration.busyMode = .timeout(1)
                configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
                connection = try DatabaseQueue(path: path, configuration: configuration)
            }
            try connection?.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
        } catch {
            // Best effort: see the type's documentation.
        }
    }

    /// Waits for a running checkpoint, checkpoints what was written since (so the log a pull leaves
    /// behind is already in the database file), and closes the connection.
    func close() {
        let written = lock.withLock { () -> Int in
            closed = true
            return pending
        }
        queue.sync {
            // Not worth opening a connection for a few pages: the next pull's checkpoints take them.
            if written > 0 && connection != nil || written >= Self.threshold / 4 { checkpointNow() }
            try? connection?.close()
            connection = nil
        }
    }
}
