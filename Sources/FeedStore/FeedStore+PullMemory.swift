public import FeedCore
public import Foundation
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
                    arguments: [feed]),
                try row.decode(String.self, forColumn: "source") == source,
                let lastSuccess = try row.decode(Double?.self, forColumn: "last_success_at"),
                try row.decode(Double?.self, forColumn: "last_attempt_at") == lastSuccess,
                try row.decode(String?.self, forColumn: "last_error") == nil
            else { return nil }
            return IncrementalBaseline(pageCount: try row.decode(Int?.self, forColumn: "page_count"))
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

    /// The newest `updated` date among the visible items of `feed`, for a `since` filter.
    public func newestUpdate(for feed: String) throws -> Date? {
        try reading("read the newest stored date of feed '\(feed)'") { db in
            try Double.fetchOne(
                db, sql: "SELECT MAX(updated) FROM item WHERE feed = ? AND staged = 0", arguments: [feed]
            ).map(Date.init(timeIntervalSince1970:))
        }
    }
}

/// The store as the engine's ``PullMemory``: conditional requests from the HTTP cache, and
/// incremental baselines from the stored items.
///
/// A read that fails (a damaged row, an I/O error) is reported through `onError` and answered as
/// "nothing remembered": the pull then re-downloads instead of failing.
public struct StorePullMemory: PullMemory {
    /// The store.
    public let store: FeedStore
    /// Each feed's source type, by feed name: a baseline is only used for the same source type.
    public let sources: [String: String]
    /// Told about store reads that failed.
    public let onError: @Sendable (StoreError) -> Void
    /// When feeds are sent to a stand-in origin (a replay server on an ephemeral port), the
    /// stand-in origin and the feeds' real one: keys are written with the real origin, so they
    /// stay the same from one run to the next.
    public let originRewrite: (from: String, to: String)?

    /// Creates the adapter.
    public init(
        store: FeedStore, sources: [String: String], originRewrite: (from: String, to: String)? = nil,
        onError: @escaping @Sendable (StoreError) -> Void = { _ in }
    ) {
        self.store = store
        self.sources = sources
        self.originRewrite = originRewrite
        self.onError = onError
    }

    /// The redacted URL, with the stand-in origin replaced by the real one.
    public func key(for url: URL) -> String {
        let key = Redaction.redact(url)
        guard let (from, to) = originRewrite, key.hasPrefix(from) else { return key }
        return to + key.dropFirst(from.count)
    }

    /// The cache entry of `key`, as a ``CachedResponse``.
    public func cachedResponse(for key: String) -> CachedResponse? {
        do {
            guard let entry = try store.cachedResponse(for: key) else { return nil }
            var rebuild: (@Sendable () -> DecodedPage?)?
            if let summary = entry.page, let feed = entry.feed {
                let store = self.store
                let report = self.report
                rebuild = {
                    do {
                        return try store.rebuildPage(summary, feed: feed)
                    } catch {
                        report(error)
                        return nil
                    }
                }
            }
            return CachedResponse(
                key: entry.url, etag: entry.etag, lastModified: entry.lastModified, headers: entry.headers,
                body: entry.body, storedPage: rebuild)
        } catch {
            report(error)
            return nil
        }
    }

    /// ``FeedStore/baseline(for:source:)``.
    public func baseline(for feed: String) -> IncrementalBaseline? {
        guard let source = sources[feed] else { return nil }
        do {
            return try store.baseline(for: feed, source: source)
        } catch {
            report(error)
            return nil
        }
    }

    /// ``FeedStore/storedDigests(for:)``.
    public func storedDigests(for feed: String) -> StoredDigests? {
        guard sources[feed] != nil else { return nil }
        do {
            return try store.storedDigests(for: feed)
        } catch {
            report(error)
            return nil
        }
    }

    /// ``FeedStore/newestUpdate(for:)``.
    public func newestUpdate(for feed: String) -> Date? {
        guard sources[feed] != nil else { return nil }
        do {
            return try store.newestUpdate(for: feed)
        } catch {
            report(error)
            return nil
        }
    }

    /// The page count of the feed's last complete walk (kept after a failed pull).
    public func knownPageCount(for feed: String) -> Int? {
        guard sources[feed] != nil else { return nil }
        do {
            return try store.previousPageCount(feed: feed)
        } catch {
            report(error)
            return nil
        }
    }

    private func report(_ error: any Error) {
        onError(
            error as? StoreError
                ?? StoreError(kind: .database, path: store.path, operation: "read", detail: "\(error)"))
    }
}
