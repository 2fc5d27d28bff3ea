// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedCore
import FeedStorage
import Foundation
import PostgresNIO

/// What writing a staged page records besides its items: where the walk continues (the pull's
/// checkpoint, its heartbeat and page count) and the page's validators (`staged_cache`).
///
/// Both are `WITH` clauses of the page's read of its stored versions, the first statement after
/// the feed's lock (``PostgresFeedStore/writeItems(_:feed:pull:now:staged:keepRaw:vectors:bookkeeping:in:)``):
/// a page is two round trips shorter, and the resume point (a fan-out's whole URL list, redacted)
/// is encoded before the transaction. A page with no items writes them alone (``write(in:)``).
struct PageBookkeeping: Sendable {
    let feed: String
    let now: Double
    /// The resume point as stored (URLs redacted); nil once the walk is over.
    let resume: String?
    /// The page's validators, kept until the pull ends.
    let cache: HTTPCacheEntry?

    init(feed: String, now: Double, resume: ResumePoint?, cache: HTTPCacheEntry?) throws {
        self.feed = feed
        self.now = now
        self.resume = try resume.map(Self.storedText)
        self.cache = cache
    }

    /// A resume point as the checkpoint stores it: JSON, with credentials redacted from its URLs.
    static func storedText(_ point: ResumePoint) throws -> String {
        var point = point
        point.urls = point.urls.map { URL(string: Redaction.redact($0)) ?? $0 }
        point.visited = point.visited.map { Redaction.redact($0) }
        return String(decoding: try JSONEncoder().encode(point), as: UTF8.self)
    }

    /// The data-modifying `WITH` clauses, their binds appended to `binds` (numbered after those
    /// already there).
    func clauses(binds: inout PostgresBindings) throws -> [String] {
        binds.append(resume)
        binds.append(now)
        binds.append(feed)
        let first = binds.count - 2
        var clauses = [
            "checkpoint AS (UPDATE pull_checkpoint SET resume = $\(first), pages = pages + 1, heartbeat = $\(first + 1) WHERE feed = $\(first + 2))"
        ]
        if let cache {
            clauses.append("cache AS (\(try Self.cacheUpsert(cache, feed: feed, now: now, into: "staged_cache", binds: &binds)))")
        }
        return clauses
    }

    /// Writes the bookkeeping alone, for a page with no items.
    func write(in db: PostgresConnection) async throws {
        var binds = PostgresBindings()
        let clauses = try clauses(binds: &binds)
        try await db.exec(PostgresQuery(unsafeSQL: "WITH \(clauses.joined(separator: ", ")) SELECT 1", binds: binds))
    }

    /// The upsert of a remembered response into `table` (`http_cache` or `staged_cache`), its binds
    /// appended to `binds`.
    static func cacheUpsert(
        _ entry: HTTPCacheEntry, feed: String, now: Double, into table: String, binds: inout PostgresBindings
    ) throws -> String {
        let first = binds.count + 1
        binds.append(entry.url)
        binds.append(feed)
        binds.append(entry.etag)
        binds.append(entry.lastModified)
        binds.append(Int32(entry.status))
        binds.append(try HTTPCacheEntry.encodeHeaders(entry.headers))
        try binds.append(entry.body)
        binds.append(try entry.page.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) })
        binds.append(entry.storedAt?.timeIntervalSince1970 ?? now)
        let values = (first..<first + 9).map { "$\($0)" }.joined(separator: ", ")
        return """
            INSERT INTO \(table) (url, feed, etag, last_modified, status, headers, body, page, stored_at)
            VALUES (\(values))
            ON CONFLICT (url) DO UPDATE SET feed = excluded.feed, etag = excluded.etag,
                last_modified = excluded.last_modified, status = excluded.status, headers = excluded.headers,
                body = excluded.body, page = excluded.page, stored_at = excluded.stored_at
            """
    }
}

#endif
