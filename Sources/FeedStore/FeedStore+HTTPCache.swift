import Foundation
public import FeedCore
import GRDB

extension FeedStore {
    /// The remembered response for `url` (redacted, as it was stored), or `nil`.
    ///
    /// Entries are written by ``commitPull(_:)`` in the same transaction as the feed's items, so a
    /// validator is visible only once the items it stands for are committed: a `304` answered for it
    /// can always be served from the stored body (or the stored page, see ``StoredPageSummary``).
    public func cachedResponse(for url: String) throws -> HTTPCacheEntry? {
        try reading("read the HTTP cache for \(url)") { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT url, feed, etag, last_modified, status, headers, body, page, stored_at
                        FROM http_cache WHERE url = ?
                        """,
                    arguments: [url])
            else { return nil }
            let headersJSON = try row.decode(String.self, forColumn: "headers")
            guard let headers = Self.decodeHeaders(headersJSON) else {
                throw StoreError(
                    kind: .damaged, path: path, operation: "read the HTTP cache for \(url)",
                    detail: "the stored header fields are not a JSON list of [name, value] pairs")
            }
            var page: StoredPageSummary?
            if let text = try row.decode(String?.self, forColumn: "page") {
                guard let decoded = try? JSONDecoder().decode(StoredPageSummary.self, from: Data(text.utf8)) else {
                    throw StoreError(
                        kind: .damaged, path: path, operation: "read the HTTP cache for \(url)",
                        detail: "the stored page summary is not valid")
                }
                page = decoded
            }
            var entry = HTTPCacheEntry(
                url: try row.decode(String.self, forColumn: "url"),
                status: try row.decode(Int.self, forColumn: "status"),
                headers: headers,
                body: try row.decode(Data.self, forColumn: "body"),
                etag: try row.decode(String?.self, forColumn: "etag"),
                lastModified: try row.decode(String?.self, forColumn: "last_modified"),
                storedAt: Date(timeIntervalSince1970: try row.decode(Double.self, forColumn: "stored_at")))
            entry.page = page
            entry.feed = try row.decode(String.self, forColumn: "feed")
            return entry
        }
    }

    /// The page `summary` describes, rebuilt from the stored items of `feed`; `nil` when one of them
    /// is no longer stored (pruned).
    public func rebuildPage(_ summary: StoredPageSummary, feed: String) throws -> DecodedPage? {
        try reading("rebuild a cached page of feed '\(feed)'") { db in
            var byID: [String: FeedItem] = [:]
            // SQLite limits bound parameters; pages are small, but chunk anyway.
            let unique = Array(Set(summary.ids))
            var start = 0
            while start < unique.count {
                let chunk = Array(unique[start..<min(start + 500, unique.count)])
                start += chunk.count
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, \(ItemColumns.names.joined(separator: ", ")) FROM item
                        WHERE feed = ? AND staged = 0 AND id IN (\(chunk.map { _ in "?" }.joined(separator: ", ")))
                        """,
                    arguments: StatementArguments([feed] + chunk))
                for row in rows {
                    let item = try ItemColumns.item(from: row)
                    byID[item.id] = item
                }
            }
            var items: [FeedItem] = []
            items.reserveCapacity(summary.ids.count)
            for id in summary.ids {
                guard let item = byID[id] else { return nil }
                items.append(item)
            }
            return DecodedPage(items: items, totals: summary.totals, nextCursor: summary.nextCursor)
        }
    }

    static func storeCacheEntry(_ entry: HTTPCacheEntry, feed: String, now: Double, staged: Bool, in db: Database)
        throws
    {
        let table = staged ? "staged_cache" : "http_cache"
        var page: String?
        if let summary = entry.page {
            page = String(decoding: try JSONEncoder().encode(summary), as: UTF8.self)
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO \(table) (url, feed, etag, last_modified, status, headers, body, page, stored_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (url) DO UPDATE SET feed = excluded.feed, etag = excluded.etag,
                    last_modified = excluded.last_modified, status = excluded.status, headers = excluded.headers,
                    body = excluded.body, page = excluded.page, stored_at = excluded.stored_at
                """
        ).execute(arguments: [
            entry.url, feed, entry.etag, entry.lastModified, entry.status, try encodeHeaders(entry.headers), entry.body,
            page, entry.storedAt?.timeIntervalSince1970 ?? now,
        ])
    }

    /// Header fields as a JSON list of `[name, value]` pairs, keeping order and repeats.
    static func encodeHeaders(_ headers: HTTPHeaders) throws -> String { try HTTPCacheEntry.encodeHeaders(headers) }

    static func decodeHeaders(_ text: String) -> HTTPHeaders? { HTTPCacheEntry.decodeHeaders(text) }
}
