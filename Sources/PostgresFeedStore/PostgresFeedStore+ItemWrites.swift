// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedCore
import FeedStorage
import Foundation
import NIOCore
import PostgresNIO

/// Writing a page of items in a constant number of statements, whatever its size: one read of the
/// stored versions of the page's ids, then at most one statement per kind of write — new items
/// (`INSERT … SELECT FROM unnest(…)`), items seen again unchanged, changed items (updated in place,
/// or waiting in `staged_update`), the shared marks of the dedup keys written, the feed's visible
/// count. The outcome is what SQLite's item-by-item `FeedStore.writeItems` gives (see there for the
/// rules); the conformance and equivalence suites hold the two engines to it.
extension PostgresFeedStore {
    /// Upserts `items` as pull `pull` saw them; see SQLite's `FeedStore.writeItems`. An id repeated
    /// in `items`, or already seen by this pull, keeps its first occurrence. `vectors` are the
    /// items' `tsvector` literals by id when already built (any missing is built here); a staged
    /// page's `bookkeeping` is written by the first statement.
    static func writeItems(
        _ items: [PreparedItem], feed: String, pull: Int64, now: Double, staged: Bool, keepRaw: Bool,
        vectors: [String: String] = [:], bookkeeping: PageBookkeeping? = nil, in db: PostgresConnection
    ) async throws -> CommitSummary {
        var summary = CommitSummary()
        var seenIDs = Set<String>()
        let items = items.filter { seenIDs.insert($0.item.id).inserted }
        guard !items.isEmpty else {
            try await bookkeeping?.write(in: db)
            return summary
        }
        let stored = try await storedVersions(of: items.map(\.item.id), feed: feed, bookkeeping: bookkeeping, in: db)

        var inserts: [PreparedItem] = []
        var unchanged: [String] = []
        var changed: [(item: PreparedItem, sortKey: Double?)] = []
        for prepared in items {
            let stored = stored[prepared.item.id]
            switch ItemWrite.of(prepared, stored: stored?.version, pull: pull, keepRaw: keepRaw, storedFields: { stored?.fields }) {
            case .insert: inserts.append(prepared)
            case .skip: continue
            case .unchanged: unchanged.append(prepared.item.id)
            case .update(let sortKey): changed.append((prepared, sortKey))
            }
        }
        summary.inserted = inserts.count
        summary.unchanged = unchanged.count
        summary.updated = changed.count

        var touchedKeys: [String] = []
        if !inserts.isEmpty {
            try await insert(inserts, feed: feed, pull: pull, now: now, staged: staged, vectors: vectors, in: db)
            touchedKeys += inserts.map(\.dedupKey)
        }
        if !unchanged.isEmpty {
            try await db.exec(
                """
                UPDATE item SET last_seen_at = \(now), missing_since = NULL, seen_pull = \(pull)
                WHERE feed = \(feed) AND id = ANY(\(unchanged)::text[])
                """)
        }
        if !changed.isEmpty {
            if staged {
                // The new versions wait; the stored ones stay visible until the pull ends.
                try await stageUpdates(changed.map(\.item), feed: feed, vectors: vectors, in: db)
                try await db.exec(
                    "UPDATE item SET seen_pull = \(pull) WHERE feed = \(feed) AND id = ANY(\(changed.map(\.item.item.id))::text[])")
            } else {
                try await update(changed, feed: feed, pull: pull, now: now, vectors: vectors, in: db)
                touchedKeys += changed.map(\.item.dedupKey)
            }
        }
        if !touchedKeys.isEmpty {
            // Another feed's transaction may be writing the same keys now, each unseen by the
            // other's snapshot: both rows would stay unshared, and the stream would show the item
            // twice. The transactions take turns from here to their end, and each looks again
            // (a statement sees what committed before it), so the later one marks both.
            try await db.exec("SELECT pg_advisory_xact_lock(\(PostgresSchema.sharedMarksLockKey))")
            try await markShared(touchedKeys, in: db)
        }
        if !staged && summary.inserted > 0 {
            try await db.exec(
                "UPDATE feed SET visible_items = visible_items + \(Int64(summary.inserted)) WHERE name = \(feed)")
        }
        return summary
    }

    /// The stored versions of `ids` of `feed`, by id, with their mapped fields, in one statement: a
    /// primary-key probe per id. Written as a `LATERAL` subquery with `LIMIT 1` (which the planner
    /// cannot flatten into a join) so that the plan does not depend on the table's statistics:
    /// `feed = $1 AND id = ANY($2)`, and a join with the ids, were planned as a walk of the whole feed
    /// while a first pull filled it. `bookkeeping`'s writes are `WITH` clauses of the same statement.
    private static func storedVersions(
        of ids: [String], feed: String, bookkeeping: PageBookkeeping?, in db: PostgresConnection
    ) async throws -> [String: (version: StoredItemVersion, fields: FeedItem)] {
        var binds = PostgresBindings()
        let clauses = try bookkeeping?.clauses(binds: &binds) ?? []
        binds.append(ids)
        binds.append(feed)
        let (idsBind, feedBind) = (binds.count - 1, binds.count)
        let with = clauses.isEmpty ? "" : "WITH \(clauses.joined(separator: ", ")) "
        var versions: [String: (version: StoredItemVersion, fields: FeedItem)] = [:]
        for raw in try await db.rows(
            PostgresQuery(
                unsafeSQL: """
                    \(with)SELECT stored.* FROM unnest($\(idsBind)::text[]) AS wanted(id), LATERAL (
                        SELECT id, content_hash, sort_key, (published IS NOT NULL OR updated IS NOT NULL) AS dated, seen_pull,
                            (raw IS NULL) AS raw_missing, title, summary, url, author_name, author_url, author_avatar, image_url,
                            published, updated
                        FROM item WHERE item.feed = $\(feedBind) AND item.id = wanted.id LIMIT 1) AS stored
                    """, binds: binds))
        {
            let row = raw.makeRandomAccess()
            let fields = try PostgresItemColumns.item(from: row)
            let version = StoredItemVersion(
                hash: try row.get("content_hash"), sortKey: try row.get("sort_key"), dated: try row.get("dated"),
                seenPull: try row.get("seen_pull"), rawMissing: try row.get("raw_missing"))
            versions[fields.id] = (version, fields)
        }
        return versions
    }

    /// The content columns of `items` as array parameters, in the order of ``contentColumns``;
    /// the `tsvector` literals from `vectors` by id, or built here.
    private static func contentArrays(_ items: [FeedItem], vectors: [String: String], into binds: inout PostgresBindings) {
        binds.append(items.map(\.id))
        binds.append(items.map(\.title))
        binds.append(PostgresNullableArray(items.map(\.summary)))
        binds.append(PostgresNullableArray(items.map(\.url)))
        binds.append(PostgresNullableArray(items.map { $0.author?.name }))
        binds.append(PostgresNullableArray(items.map { $0.author?.url }))
        binds.append(PostgresNullableArray(items.map { $0.author?.avatarURL }))
        binds.append(PostgresNullableArray(items.map(\.imageURL)))
        binds.append(PostgresNullableArray(items.map { $0.published?.timeIntervalSince1970 }))
        binds.append(PostgresNullableArray(items.map { $0.updated?.timeIntervalSince1970 }))
        binds.append(PostgresNullableArray(items.map { $0.raw.map { ByteBuffer(data: $0) } }))
        binds.append(items.map { vectors[$0.id] ?? PostgresSearchVector.literal($0) })
    }

    /// `unnest` of the arrays of ``contentArrays(_:vectors:into:)`` bound from parameter `first` on, named
    /// after the item columns, followed by `extra` more arrays.
    private static func unnest(from first: Int, extra: [(name: String, type: String)]) -> String {
        let columns = contentColumns + extra
        let arrays = columns.enumerated().map { "$\(first + $0.offset)::\($0.element.type)[]" }
        return "unnest(\(arrays.joined(separator: ", "))) AS u(\(columns.map(\.name).joined(separator: ", ")))"
    }

    /// The item content columns in the order ``contentArrays(_:vectors:into:)`` binds them.
    private static let contentColumns: [(name: String, type: String)] = [
        ("id", "text"), ("title", "text"), ("summary", "text"), ("url", "text"), ("author_name", "text"),
        ("author_url", "text"), ("author_avatar", "text"), ("image_url", "text"), ("published", "float8"),
        ("updated", "float8"), ("raw", "bytea"), ("search", "tsvector"),
    ]

    private static var contentNames: String { contentColumns.map(\.name).joined(separator: ", ") }

    /// Inserts new items after the feed's last position (in the order given), in one statement.
    /// A new item is marked shared when another row already carries its dedup key, or another new
    /// item does; the other rows carrying its key are marked by ``markShared(_:in:)`` after.
    private static func insert(
        _ items: [PreparedItem], feed: String, pull: Int64, now: Double, staged: Bool, vectors: [String: String],
        in db: PostgresConnection
    ) async throws {
        var counts: [String: Int] = [:]
        for item in items { counts[item.dedupKey, default: 0] += 1 }
        var binds = PostgresBindings()
        binds.append(feed)
        binds.append(now)
        binds.append(pull)
        binds.append(staged)
        contentArrays(items.map(\.item), vectors: vectors, into: &binds)
        binds.append(items.map(\.dedupKey))
        binds.append(PostgresNullableArray(items.map { $0.item.sortDate?.timeIntervalSince1970 }))
        binds.append(items.indices.map { Int64($0) })
        binds.append(items.map(\.hash))
        binds.append(items.map { counts[$0.dedupKey, default: 0] > 1 })
        let source = unnest(
            from: 5,
            extra: [
                ("dedup_key", "text"), ("sort_key", "float8"), ("wire_index", "int8"), ("content_hash", "int8"),
                ("repeated", "bool"),
            ])
        try await db.exec(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO item (feed, \(contentNames), dedup_key, sort_key, feed_position, content_hash,
                        first_seen_at, last_seen_at, seen_pull, staged, shared)
                    SELECT $1, \(contentNames), dedup_key, sort_key, next.position + wire_index, content_hash, $2, $2,
                        $3, $4, repeated OR EXISTS (SELECT 1 FROM item carrier WHERE carrier.dedup_key = u.dedup_key)
                    FROM \(source),
                        (SELECT COALESCE(MAX(feed_position) + 1, 0) AS position FROM item WHERE feed = $1) AS next
                    """, binds: binds))
    }

    /// Writes the new versions of changed items to `staged_update`, where they wait for the pull's end.
    private static func stageUpdates(
        _ items: [PreparedItem], feed: String, vectors: [String: String], in db: PostgresConnection
    ) async throws {
        var binds = PostgresBindings()
        binds.append(feed)
        contentArrays(items.map(\.item), vectors: vectors, into: &binds)
        binds.append(items.map(\.dedupKey))
        binds.append(items.map(\.hash))
        let source = unnest(from: 2, extra: [("dedup_key", "text"), ("content_hash", "int8")])
        try await db.exec(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO staged_update (feed, \(contentNames), dedup_key, content_hash)
                    SELECT $1, \(contentNames), dedup_key, content_hash FROM \(source)
                    ON CONFLICT (feed, id) DO UPDATE SET title = excluded.title, summary = excluded.summary,
                        url = excluded.url, author_name = excluded.author_name, author_url = excluded.author_url,
                        author_avatar = excluded.author_avatar, image_url = excluded.image_url,
                        published = excluded.published, updated = excluded.updated, raw = excluded.raw,
                        search = excluded.search, dedup_key = excluded.dedup_key, content_hash = excluded.content_hash
                    """, binds: binds))
    }

    /// Updates changed items in place with their new sort keys, in one statement.
    private static func update(
        _ changed: [(item: PreparedItem, sortKey: Double?)], feed: String, pull: Int64, now: Double,
        vectors: [String: String], in db: PostgresConnection
    ) async throws {
        var binds = PostgresBindings()
        binds.append(feed)
        binds.append(now)
        binds.append(pull)
        contentArrays(changed.map(\.item.item), vectors: vectors, into: &binds)
        binds.append(changed.map(\.item.dedupKey))
        binds.append(PostgresNullableArray(changed.map(\.sortKey)))
        binds.append(changed.map(\.item.hash))
        let source = unnest(from: 4, extra: [("dedup_key", "text"), ("sort_key", "float8"), ("content_hash", "int8")])
        let assignments = (contentColumns.dropFirst().map(\.name) + ["dedup_key", "sort_key", "content_hash"])
            .map { "\($0) = u.\($0)" }.joined(separator: ", ")
        try await db.exec(
            PostgresQuery(
                unsafeSQL: """
                    UPDATE item SET \(assignments), last_seen_at = $2, missing_since = NULL, seen_pull = $3
                    FROM \(source) WHERE item.feed = $1 AND item.id = u.id
                    """, binds: binds))
    }

    /// Marks shared every row carrying one of `dedupKeys` that more than one row carries (see
    /// schema v2), in one statement.
    static func markShared(_ dedupKeys: [String], in db: PostgresConnection) async throws {
        let keys = Array(Set(dedupKeys))
        guard !keys.isEmpty else { return }
        try await db.exec(
            """
            UPDATE item SET shared = TRUE
            WHERE NOT shared AND dedup_key = ANY(\(keys)::text[]) AND dedup_key IN (
                SELECT dedup_key FROM item WHERE dedup_key = ANY(\(keys)::text[]) GROUP BY dedup_key HAVING COUNT(*) > 1)
            """)
    }

}

#endif
