import Foundation
import FeedCore
import GRDB

extension FeedStore {
    /// The remembered response for `url` (redacted, as it was stored), or `nil`.
    ///
    /// Entries are written by ``commitPull(_:)`` in the same transaction as the feed's items, so a
    /// validator is visible only once the items it stands for are committed: a `304` answered for it
    /// can always be served from the stored body.
    public func cachedResponse(for url: String) throws -> HTTPCacheEntry? {
        try reading("read the HTTP cache for \(url)") { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT url, etag, last_modified, status, headers, body, stored_at
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
            return HTTPCacheEntry(
                url: try row.decode(String.self, forColumn: "url"),
                status: try row.decode(Int.self, forColumn: "status"),
                headers: headers,
                body: try row.decode(Data.self, forColumn: "body"),
                etag: try row.decode(String?.self, forColumn: "etag"),
                lastModified: try row.decode(String?.self, forColumn: "last_modified"),
                storedAt: Date(timeIntervalSince1970: try row.decode(Double.self, forColumn: "stored_at")))
        }
    }

    static func storeCacheEntry(_ entry: HTTPCacheEntry, feed: String, now: Double, in db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO http_cache (url, feed, etag, last_modified, status, headers, body, stored_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (url) DO UPDATE SET feed = excluded.feed, etag = excluded.etag,
                    last_modified = excluded.last_modified, status = excluded.status, headers = excluded.headers,
                    body = excluded.body, stored_at = excluded.stored_at
                """
        ).execute(arguments: [
            entry.url, feed, entry.etag, entry.lastModified, entry.status, try encodeHeaders(entry.headers), entry.body,
            entry.storedAt?.timeIntervalSince1970 ?? now,
        ])
    }

    /// Header fields as a JSON list of `[name, value]` pairs, keeping order and repeats.
    static func encodeHeaders(_ headers: HTTPHeaders) throws -> String {
        let pairs = headers.fields.map { [$0.name, $0.value] }
        return String(decoding: try JSONEncoder().encode(pairs), as: UTF8.self)
    }

    static func decodeHeaders(_ text: String) -> HTTPHeaders? {
        guard let pairs = try? JSONDecoder().decode([[String]].self, from: Data(text.utf8)) else { return nil }
        var headers = HTTPHeaders()
        for pair in pairs {
            guard pair.count == 2 else { return nil }
            headers.add(pair[0], pair[1])
        }
        return headers
    }
}
