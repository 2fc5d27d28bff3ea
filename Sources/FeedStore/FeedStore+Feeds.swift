import FeedCore
import Foundation
import GRDB

extension FeedStore {
    /// Every stored feed with its item count and last pull, by name.
    public func feedSummaries() throws -> [FeedSummary] {
        try reading("read feed summaries") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT feed.*,
                        (SELECT COUNT(*) FROM item WHERE item.feed = feed.name AND staged = 0) AS item_count,
                        (SELECT COUNT(*) FROM item WHERE item.feed = feed.name AND staged = 0 AND missing_since IS NOT NULL)
                            AS missing_count,
                        (SELECT resume FROM pull_checkpoint WHERE pull_checkpoint.feed = feed.name) AS resume,
                        (SELECT COUNT(*) FROM item WHERE item.feed = feed.name AND staged = 1)
                            + (SELECT COUNT(*) FROM staged_update WHERE staged_update.feed = feed.name) AS staged_count
                    FROM feed ORDER BY name
                    """
            ).map { row in
                FeedSummary(
                    name: try row.decode(String.self, forColumn: "name"),
                    source: try row.decode(String.self, forColumn: "source"),
                    itemCount: try row.decode(Int.self, forColumn: "item_count"),
                    missingCount: try row.decode(Int.self, forColumn: "missing_count"),
                    lastAttemptAt: try row.decode(Double?.self, forColumn: "last_attempt_at").map(
                        Date.init(timeIntervalSince1970:)),
                    lastSuccessAt: try row.decode(Double?.self, forColumn: "last_success_at").map(
                        Date.init(timeIntervalSince1970:)),
                    lastError: try row.decode(String?.self, forColumn: "last_error"),
                    lastPages: try row.decode(Int?.self, forColumn: "last_pages"),
                    lastRequests: try row.decode(Int?.self, forColumn: "last_requests"),
                    lastItems: try row.decode(Int?.self, forColumn: "last_items"),
                    pageCount: try row.decode(Int?.self, forColumn: "page_count"),
                    resumesAtPage: try row.decode(String?.self, forColumn: "resume").flatMap {
                        try? JSONDecoder().decode(ResumePoint.self, from: Data($0.utf8)).nextPage
                    },
                    stagedCount: try row.decode(Int.self, forColumn: "staged_count"),
                    config: try row.decode(String?.self, forColumn: "config"))
            }
        }
    }

    /// Pages the feed's last successful pull read, to speculate on how many to fetch; `nil` when the
    /// feed never succeeded.
    public func previousPageCount(feed: String) throws -> Int? {
        try reading("read the page count of feed '\(feed)'") { db in
            try Int.fetchOne(db, sql: "SELECT page_count FROM feed WHERE name = ?", arguments: [feed])
        }
    }

    /// Records `config` (a configuration file's absolute path) as the owner of the stored feeds
    /// among `feeds`.
    public func assignOwner(_ config: String, feeds: [String]) throws {
        try writing("record the configuration of the pulled feeds") { db in
            for feed in feeds {
                try db.execute(sql: "UPDATE feed SET config = ? WHERE name = ?", arguments: [config, feed])
            }
        }
    }

    /// The store's change number: it moves with every change a read can see (schema `v6`).
    public func changeVersion() throws -> Int64 {
        try reading("read the change number") { db in try Schema.changeVersion(in: db) }
    }

    /// ``changeVersion()`` on a read-only connection of its own, opened at the first call: one
    /// row read by its key, on the caller's thread, never waiting for a reader of the pool.
    public func awaitChangeVersion() async throws -> Int64 {
        do {
            return try changeReader.withLock { reader in
                let queue: DatabaseQueue
                switch reader {
                case .open(let opened):
                    queue = opened
                case .closed:
                    throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the store is closed")
                case .unopened:
                    var configuration = Configuration()
                    configuration.label = "feedagg.store.change"
                    configuration.readonly = true
                    // The caller's thread waits at most this long for a lock (the server then reads
                    // through the pool instead).
                    configuration.busyMode = .timeout(0.05)
                    queue = try DatabaseQueue(path: path, configuration: configuration)
                    reader = .open(queue)
                }
                return try queue.read { db in try Schema.changeVersion(in: db) }
            }
        } catch {
            throw StoreError.wrapping(error, path: path, operation: "read the change number")
        }
    }

    /// The connection of ``awaitChangeVersion()``.
    enum ChangeReader {
        case unopened
        case open(DatabaseQueue)
        case closed
    }

    /// Every stored feed's name, sorted (feeds pulled together are stored in no fixed order).
    public func feedNames() throws -> [String] {
        try reading("read the feed names") { db in
            try String.fetchAll(db, sql: "SELECT name FROM feed ORDER BY name")
        }
    }

    /// Deletes exactly the feeds named in `feeds` (those stored), with their items and cache entries
    /// (one transaction); returns how many feeds and items went.
    @discardableResult
    public func delete(feeds: [String]) throws -> (feeds: Int, items: Int) {
        try writing("delete feeds") { db in
            let stored = Set(try String.fetchAll(db, sql: "SELECT name FROM feed"))
            return try Self.delete(feeds.filter(stored.contains), in: db)
        }
    }

    static func delete(_ doomed: [String], in db: Database) throws -> (feeds: Int, items: Int) {
        if !doomed.isEmpty { try Schema.noteChange(in: db) }
        var items = 0
        for feed in doomed {
            items += try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item WHERE feed = ? AND staged = 0", arguments: [feed]) ?? 0
            try db.execute(sql: "DELETE FROM item WHERE feed = ?", arguments: [feed])
            try db.execute(sql: "DELETE FROM http_cache WHERE feed = ?", arguments: [feed])
            try discardStaged(feed: feed, in: db)
            try db.execute(sql: "DELETE FROM feed WHERE name = ?", arguments: [feed])
        }
        return (doomed.count, items)
    }

    /// Deletes every feed not in `feeds`, with its items and cache entries (one transaction); returns
    /// how many feeds and items went.
    @discardableResult
    public func prune(keeping feeds: [String]) throws -> (feeds: Int, items: Int) {
        try writing("prune feeds") { db in
            let keep = Set(feeds)
            let doomed = try String.fetchAll(db, sql: "SELECT name FROM feed").filter { !keep.contains($0) }
            return try Self.delete(doomed, in: db)
        }
    }
}
