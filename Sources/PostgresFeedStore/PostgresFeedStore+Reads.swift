// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

public import FeedCore
public import FeedStorage
public import Foundation
import PostgresNIO

extension PostgresFeedStore {
    /// The remembered response for `url` (redacted, as it was stored), or `nil`.
    public func cachedResponse(for url: String) throws -> HTTPCacheEntry? {
        let location = self.location
        return try read("read the HTTP cache for \(url)") { db in
            guard
                let row = try await db.row(
                    "SELECT \(unescaped: Self.cacheColumns) FROM http_cache WHERE url = \(url)")
            else { return nil }
            return try Self.cacheEntry(from: row, location: location, operation: "read the HTTP cache for \(url)")
        }
    }

    /// The columns ``cacheEntry(from:location:operation:)`` reads.
    static let cacheColumns = "url, feed, etag, last_modified, status, headers, body, page, stored_at"

    /// The cache entry a row of ``cacheColumns`` holds.
    static func cacheEntry(from row: PostgresRandomAccessRow, location: String, operation: String) throws -> HTTPCacheEntry {
        guard let headers = HTTPCacheEntry.decodeHeaders(try row.get("headers", String.self)) else {
            throw StoreError(
                kind: .damaged, path: location, operation: operation,
                detail: "the stored header fields are not a JSON list of [name, value] pairs")
        }
        var page: StoredPageSummary?
        if let text = try row.get("page", String?.self) {
            guard let decoded = try? JSONDecoder().decode(StoredPageSummary.self, from: Data(text.utf8)) else {
                throw StoreError(
                    kind: .damaged, path: location, operation: operation, detail: "the stored page summary is not valid")
            }
            page = decoded
        }
        var entry = HTTPCacheEntry(
            url: try row.get("url"), status: Int(try row.get("status", Int32.self)), headers: headers,
            body: try row.get("body", Data.self), etag: try row.get("etag"), lastModified: try row.get("last_modified"),
            storedAt: Date(timeIntervalSince1970: try row.get("stored_at", Double.self)))
        entry.page = page
        entry.feed = try row.get("feed", String.self)
        return entry
    }

    /// Feeds with more cache entries than this are left out of ``pullMemorySnapshot(feeds:)``'s cache.
    static let snapshotPagesPerFeed = 8

    /// The stored states and cache entries of `feeds` in two statements, for a pull of them (a
    /// `feedagg serve` batch: 64 feeds, otherwise two round trips each).
    public func pullMemorySnapshot(feeds: [String]) throws -> PullMemorySnapshot? {
        guard !feeds.isEmpty else { return nil }
        let location = self.location
        let operation = "read the stored state and HTTP cache of \(feeds.count) feeds"
        return try read(operation) { db in
            var states: [String: StoredFeedState?] = Dictionary(uniqueKeysWithValues: feeds.map { ($0, nil) })
            for raw in try await db.rows(
                "SELECT name, \(unescaped: Self.stateColumns) FROM feed WHERE name = ANY(\(feeds)::text[])")
            {
                let row = raw.makeRandomAccess()
                states[try row.get("name", String.self)] = try Self.feedState(from: row)
            }
            var cache: [String: HTTPCacheEntry] = [:]
            // A feed of many pages keeps its per-key reads: an unchanged feed reads page 1 only,
            // and reading every page's entry for it would cost more than the round trip saved.
            for raw in try await db.rows(
                """
                SELECT \(unescaped: Self.cacheColumns) FROM http_cache WHERE feed IN (
                    SELECT feed FROM http_cache WHERE feed = ANY(\(feeds)::text[])
                    GROUP BY feed HAVING count(*) <= \(Self.snapshotPagesPerFeed))
                """)
            {
                let entry = try Self.cacheEntry(from: raw.makeRandomAccess(), location: location, operation: operation)
                cache[entry.url] = entry
            }
            return PullMemorySnapshot(states: states, cache: cache)
        }
    }

    /// The page `summary` describes, rebuilt from the stored items of `feed`; `nil` when one is gone.
    public func rebuildPage(_ summary: StoredPageSummary, feed: String) throws -> DecodedPage? {
        let items: [FeedItem]? = try read("rebuild a cached page of feed '\(feed)'") { db in
            var byID: [String: FeedItem] = [:]
            let ids = Array(Set(summary.ids))
            for raw in try await db.rows(
                """
                SELECT id, title, summary, url, author_name, author_url, author_avatar, image_url, published, updated, raw
                FROM item WHERE feed = \(feed) AND NOT staged AND id = ANY(\(ids))
                """)
            {
                let item = try PostgresItemColumns.item(from: raw.makeRandomAccess())
                byID[item.id] = item
            }
            var items: [FeedItem] = []
            for id in summary.ids {
                guard let item = byID[id] else { return nil }
                items.append(item)
            }
            return items
        }
        return items.map { DecodedPage(items: $0, totals: summary.totals, nextCursor: summary.nextCursor) }
    }

    /// The incremental baseline of `feed` (see SQLite's `FeedStore.baseline(for:source:)`).
    public func baseline(for feed: String, source: String) throws -> IncrementalBaseline? {
        try read("read the stored state of feed '\(feed)'") { db in
            try await db.row("SELECT \(unescaped: Self.stateColumns) FROM feed WHERE name = \(feed)")
                .map(Self.feedState(from:))?.baseline(source: source)
        }
    }

    /// The columns ``feedState(from:)`` reads.
    static let stateColumns = "source, page_count, last_success_at, last_attempt_at, last_error"

    /// The state a row of ``stateColumns`` holds.
    static func feedState(from row: PostgresRandomAccessRow) throws -> StoredFeedState {
        StoredFeedState(
            source: try row.get("source", String.self), pageCount: try row.get("page_count", Int64?.self).map(Int.init),
            lastSuccessAt: try row.get("last_success_at", Double?.self), lastAttemptAt: try row.get("last_attempt_at", Double?.self),
            lastError: try row.get("last_error", String?.self))
    }

    /// The content digest of every visible item of `feed`, by id.
    public func storedDigests(for feed: String) throws -> StoredDigests {
        let digests: [String: Int64] = try read("read the stored digests of feed '\(feed)'") { db in
            var digests: [String: Int64] = [:]
            for row in try await db.rows("SELECT id, content_hash FROM item WHERE feed = \(feed) AND NOT staged") {
                let (id, hash) = try row.decode((String, Int64).self)
                digests[id] = hash
            }
            return digests
        }
        return StoredDigests(digests)
    }

    /// The id of every item of `feed`, visible or staged by an unfinished pull.
    public func heldItemIDs(for feed: String) throws -> Set<String> {
        try read("read the item ids of feed '\(feed)'") { db in
            var ids = Set<String>()
            for row in try await db.rows("SELECT id FROM item WHERE feed = \(feed)") { ids.insert(try row.decode(String.self)) }
            return ids
        }
    }

    /// The newest `updated` date among the visible items of `feed`.
    public func newestUpdate(for feed: String) throws -> Date? {
        try read("read the newest stored date of feed '\(feed)'") { db in
            try await db.row("SELECT MAX(updated) AS newest FROM item WHERE feed = \(feed) AND NOT staged")?
                .get("newest", Double?.self).map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Pages the feed's last successful pull read.
    public func previousPageCount(feed: String) throws -> Int? {
        try read("read the page count of feed '\(feed)'") { db in
            try await db.row("SELECT page_count FROM feed WHERE name = \(feed)")?.get("page_count", Int64?.self).map(Int.init)
        }
    }

    /// Every stored feed with its item count and last pull, by name.
    public func feedSummaries() throws -> [FeedSummary] {
        try read("read feed summaries") { db in
            try await db.rows(
                """
                WITH items AS (
                    SELECT feed, COUNT(*) FILTER (WHERE NOT staged) AS stored,
                        COUNT(*) FILTER (WHERE NOT staged AND missing_since IS NOT NULL) AS missing,
                        COUNT(*) FILTER (WHERE staged) AS staged
                    FROM item GROUP BY feed
                ),
                updates AS (SELECT feed, COUNT(*) AS staged FROM staged_update GROUP BY feed)
                SELECT feed.*, COALESCE(items.stored, 0) AS item_count, COALESCE(items.missing, 0) AS missing_count,
                    pull_checkpoint.resume AS resume,
                    COALESCE(items.staged, 0) + COALESCE(updates.staged, 0) AS staged_count
                FROM feed
                    LEFT JOIN items ON items.feed = feed.name
                    LEFT JOIN updates ON updates.feed = feed.name
                    LEFT JOIN pull_checkpoint ON pull_checkpoint.feed = feed.name
                ORDER BY feed.name
                """
            ).map { raw in
                let row = raw.makeRandomAccess()
                func int(_ name: String) throws -> Int? { try row.get(name, Int64?.self).map(Int.init) }
                return FeedSummary(
                    name: try row.get("name"), source: try row.get("source"),
                    itemCount: try int("item_count") ?? 0, missingCount: try int("missing_count") ?? 0,
                    lastAttemptAt: try row.get("last_attempt_at", Double?.self).map(Date.init(timeIntervalSince1970:)),
                    lastSuccessAt: try row.get("last_success_at", Double?.self).map(Date.init(timeIntervalSince1970:)),
                    lastError: try row.get("last_error"), lastPages: try int("last_pages"),
                    lastRequests: try int("last_requests"), lastItems: try int("last_items"),
                    pageCount: try int("page_count"),
                    resumesAtPage: try row.get("resume", String?.self).flatMap {
                        try? JSONDecoder().decode(ResumePoint.self, from: Data($0.utf8)).nextPage
                    },
                    stagedCount: try int("staged_count") ?? 0, config: try row.get("config"))
            }
        }
    }

    /// Every stored feed's name, sorted by its bytes.
    public func feedNames() throws -> [String] {
        try read("read the feed names") { db in
            try await db.rows("SELECT name FROM feed ORDER BY name").map { try $0.decode(String.self) }
        }
    }

    /// The store's change number (schema `v3`): it moves with every change a read can see.
    public func changeVersion() throws -> Int64 {
        try read("read the change number") { db in try await Self.changeVersion(on: db) }
    }

    /// ``changeVersion()`` awaited on the driver, without the bridge's threads.
    public func awaitChangeVersion() async throws -> Int64 {
        try await asyncRead("read the change number") { db in try await Self.changeVersion(on: db) }
    }

    static func changeVersion(on db: PostgresConnection) async throws -> Int64 {
        try await db.row("SELECT version FROM store_change WHERE id = 1")?.get("version", Int64.self) ?? 0
    }

    /// Records `config` as the owner of the stored feeds among `feeds`.
    public func assignOwner(_ config: String, feeds: [String]) throws {
        try transaction("record the configuration of the pulled feeds") { db in
            try await db.exec("UPDATE feed SET config = \(config) WHERE name = ANY(\(feeds))")
        }
    }

    /// Deletes exactly the feeds named (those stored), in one transaction.
    @discardableResult
    public func delete(feeds: [String]) throws -> (feeds: Int, items: Int) {
        let counts = try transaction("delete feeds") { db in
            let stored = Set(try await db.rows("SELECT name FROM feed").map { try $0.decode(String.self) })
            return try await Self.delete(feeds.filter(stored.contains), in: db)
        }
        return (counts.0, counts.1)
    }

    /// Deletes every feed not in `feeds`, in one transaction.
    @discardableResult
    public func prune(keeping feeds: [String]) throws -> (feeds: Int, items: Int) {
        let counts = try transaction("prune feeds") { db in
            let keep = Set(feeds)
            let doomed = try await db.rows("SELECT name FROM feed").map { try $0.decode(String.self) }
                .filter { !keep.contains($0) }
            return try await Self.delete(doomed, in: db)
        }
        return (counts.0, counts.1)
    }

    static func delete(_ doomed: [String], in db: PostgresConnection) async throws -> (Int, Int) {
        if !doomed.isEmpty { try await PostgresSchema.noteChange(in: db) }
        var items = 0
        for feed in doomed {
            items += Int(
                try await db.row("SELECT COUNT(*) AS n FROM item WHERE feed = \(feed) AND NOT staged")?.get("n", Int64.self)
                    ?? 0)
            // Items, cache entries, staged rows and the checkpoint go with the feed (ON DELETE CASCADE).
            try await db.exec("DELETE FROM feed WHERE name = \(feed)")
        }
        return (doomed.count, items)
    }

    /// When the store first saw each of `items`.
    public func firstSeen(_ items: [(feed: String, id: String)]) throws -> [String: [String: Date]] {
        guard !items.isEmpty else { return [:] }
        let feeds = items.map(\.feed)
        let ids = items.map(\.id)
        return try read("read first-seen times") { db in
            var seen: [String: [String: Date]] = [:]
            for row in try await db.rows(
                """
                SELECT item.feed, item.id, item.first_seen_at FROM item
                JOIN unnest(\(feeds)::text[], \(ids)::text[]) AS wanted(feed, id)
                    ON item.feed = wanted.feed AND item.id = wanted.id
                WHERE NOT item.staged
                """)
            {
                let (feed, id, value) = try row.decode((String, String, Double).self)
                seen[feed, default: [:]][id] = Date(timeIntervalSince1970: value)
            }
            return seen
        }
    }
}

#endif
