public import FeedCore
public import Foundation
import FeedStorage
import GRDB

extension FeedStore {
    /// The incremental baseline of `feed` (its page count), read from the feed's row alone, or
    /// `nil` when its last pull failed or was limited (``FeedPull/limited``), or it was never
    /// pulled, or it was pulled as another source type, so that the next pull walks it in full and
    /// closes any gap a failure or a limited pull left. (A successful pull that is not limited sets
    /// `last_success_at` to its `last_attempt_at`; a failed or limited one moves only the latter.)
    public func baseline(for feed: String, source: String) throws -> IncrementalBaseline? {
        try reading("read the stored state of feed '\(feed)'") { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT source, page_count, last_success_at, last_attempt_at, last_error
                        FROM feed WHERE name = ?
                        """,
                    arguments: [feed])
            else { return nil }
            return StoredFeedState(
                source: try row.decode(String.self, forColumn: "source"),
                pageCount: try row.decode(Int?.self, forColumn: "page_count"),
                lastSuccessAt: try row.decode(Double?.self, forColumn: "last_success_at"),
                lastAttemptAt: try row.decode(Double?.self, forColumn: "last_attempt_at"),
                lastError: try row.decode(String?.self, forColumn: "last_error")
            ).baseline(source: source)
        }
    }

    /// The content digest of every visible (not staged) item of `feed`, by item id: one read of
    /// all the feed's item rows, which is why the engine asks for it only once a page changed.
    public func storedDigests(for feed: String) throws -> StoredDigests {
        try reading("read the stored digests of feed '\(feed)'") { db in
            var digests: [String: Int64] = [:]
            let cursor = try Row.fetchCursor(
                db, sql: "SELECT id, content_hash FROM item WHERE feed = ? AND staged = 0", arguments: [feed])
            while let item = try cursor.next() {
                digests[try item.decode(String.self, atIndex: 0)] = try item.decode(Int64.self, atIndex: 1)
            }
            return StoredDigests(digests)
        }
    }

    /// The id of every item of `feed`, visible or staged by an unfinished pull.
    public func heldItemIDs(for feed: String) throws -> Set<String> {
        try reading("read the item ids of feed '\(feed)'") { db in
            Set(try String.fetchAll(db, sql: "SELECT id FROM item WHERE feed = ?", arguments: [feed]))
        }
    }

    /// The newest `updated` date among the visible items of `feed`, for a `since` filter.
    public func newestUpdate(for feed: String) throws -> Date? {
        try reading("read the newest stored date of feed '\(feed)'") { db in
            try Double.fetchOne(
                db, sql: "SELECT MAX(updated) FROM item WHERE feed = ? AND staged = 0", arguments: [feed]
            ).map(Date.init(timeIntervalSince1970:))
        }
    }
}
