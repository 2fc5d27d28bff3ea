public import FeedCore
import Foundation
import GRDB

/// A position in the stored stream: the last entry a page showed, as an opaque token.
///
/// The stream's order is a total order over persisted values — (placed first, `sort_key`
/// descending, feed declaration rank, `feed_position`, feed, id) — so the entries after a cursor are
/// the same whatever was inserted meanwhile, except the newly inserted items that sort after it.
/// Items newer than the cursor appear before it and do not disturb it. Use a cursor with the same
/// `feeds` and `sources` that produced it.
public struct StreamCursor: Sendable, Hashable, CustomStringConvertible {
    struct Position: Codable, Hashable {
        /// Format version.
        var v: Int
        /// 1 when the entry was not placed yet (undated items listed last), else 0.
        var p: Int
        /// The sort key's bit pattern (hex).
        var k: String
        /// The feed's rank in the `feeds` list.
        var r: Int
        /// The feed position.
        var n: Int64
        /// Feed name.
        var f: String
        /// Item id.
        var i: String
    }

    let position: Position
    /// The opaque token (base64url), to hand back to ``init(_:)``.
    public let token: String

    init(position: Position) throws {
        self.position = position
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        token = Self.base64URL(try encoder.encode(position))
    }

    /// Decodes a token returned as ``StoredStreamPage/nextCursor``.
    public init(_ token: String) throws {
        guard let data = Self.data(base64URL: token),
            let position = try? JSONDecoder().decode(Position.self, from: data)
        else {
            throw StoreError(
                kind: .invalidCursor, path: "", operation: "decode cursor",
                detail: "'\(token.prefix(80))' is not a cursor this feedagg wrote")
        }
        guard position.v == 1, position.p == 0 || position.p == 1, UInt64(position.k, radix: 16) != nil else {
            throw StoreError(
                kind: .invalidCursor, path: "", operation: "decode cursor",
                detail: "'\(token.prefix(80))' has an unknown format version or fields")
        }
        self.position = position
        self.token = token
    }

    /// The token.
    public var description: String { token }

    var sortKey: Double { Double(bitPattern: UInt64(position.k, radix: 16) ?? 0) }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func data(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// One page of the stored stream.
public struct StoredStreamPage: Sendable {
    /// This page's entries, in stream order.
    public var entries: [StreamEntry]
    /// Entries in the whole (filtered, de-duplicated) stream.
    public var totalItems: Int
    /// Entries per page (the `limit`).
    public var perPage: Int
    /// Pages in the whole stream at `perPage`.
    public var totalPages: Int
    /// The 1-based page number, for page-number access; `nil` for cursor access.
    public var page: Int?
    /// The token for the page after this one (``StreamCursor/init(_:)``); `nil` when nothing follows.
    public var nextCursor: String?
}

extension FeedStore {
    /// Entries after `cursor` (from the top when `nil`), at most `limit`.
    ///
    /// The stream is the stored items of `feeds` (declaration order; feeds not listed are not shown),
    /// optionally only feeds whose source type is in `sources`, de-duplicated as
    /// ``UnifiedStream/merge(_:)`` does: an item carried by several feeds (same canonical URL, or
    /// same id) is shown once, from the first feed in `feeds`, and lists every feed carrying it.
    /// Order: newest first by sort key (see ``placeUndatedItems(feedOrder:)`` for undated items),
    /// ties by feed order, then the order the feed first returned the items, then feed and id.
    public func stream(
        feeds: [String], sources: [String]? = nil, after cursor: StreamCursor? = nil, limit: Int
    ) throws -> StoredStreamPage {
        try reading("read the stream") { db in
            try Self.stream(db, feeds: feeds, sources: sources, after: cursor, offset: 0, limit: limit, page: nil)
        }
    }

    /// Page `page` (1-based) of the stream, `perPage` entries per page; see ``stream(feeds:sources:after:limit:)``.
    public func stream(feeds: [String], sources: [String]? = nil, page: Int, perPage: Int) throws -> StoredStreamPage {
        let page = max(1, page)
        let perPage = max(1, perPage)
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: perPage)
        return try reading("read the stream") { db in
            try Self.stream(
                db, feeds: feeds, sources: sources, after: nil, offset: overflow ? Int.max : offset, limit: perPage,
                page: page)
        }
    }

    private static func stream(
        _ db: Database, feeds: [String], sources: [String]?, after cursor: StreamCursor?, offset: Int, limit: Int,
        page: Int?
    ) throws -> StoredStreamPage {
        let limit = max(1, limit)
        var sourceByFeed: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT name, source FROM feed") {
            sourceByFeed[try row.decode(String.self, forColumn: "name")] = try row.decode(String.self, forColumn: "source")
        }
        var ranked: [String] = []
        for feed in feeds where !ranked.contains(feed) {
            guard let source = sourceByFeed[feed] else { continue }
            if let sources, !sources.contains(source) { continue }
            ranked.append(feed)
        }
        guard !ranked.isEmpty else {
            return StoredStreamPage(entries: [], totalItems: 0, perPage: limit, totalPages: 0, page: page, nextCursor: nil)
        }
        let rankByFeed = Dictionary(uniqueKeysWithValues: ranked.enumerated().map { ($0.element, $0.offset) })

        var arguments = StatementArguments()
        for (rank, feed) in ranked.enumerated() { _ = arguments.append(contentsOf: [feed, rank]) }
        let values = ranked.map { _ in "(?, ?)" }.joined(separator: ", ")
        // `shown`: one row per dedup key, from the first feed in `feeds` (then its first position).
        let shown = """
            WITH ranks(feed, rank) AS (VALUES \(values)),
            candidates AS (
                SELECT item.rowid AS rid, item.feed, item.id, item.dedup_key, item.sort_key, item.feed_position,
                    ranks.rank AS feed_rank,
                    ROW_NUMBER() OVER (
                        PARTITION BY item.dedup_key ORDER BY ranks.rank, item.feed_position, item.id) AS occurrence
                FROM item JOIN ranks ON ranks.feed = item.feed WHERE item.staged = 0
            ),
            shown AS (
                SELECT rid, feed, id, dedup_key, feed_rank, feed_position, sort_key,
                    (sort_key IS NULL) AS pending, -COALESCE(sort_key, 0.0) AS neg_key
                FROM candidates WHERE occurrence = 1
            )
            """
        let total = try Int.fetchOne(db, sql: shown + " SELECT COUNT(*) FROM shown", arguments: arguments) ?? 0

        // Order and cut on the narrow `shown` rows first, then read the full item rows of the page only.
        let order = "pending, neg_key, feed_rank, feed_position, feed, id"
        var filter = ""
        if let cursor {
            filter = "WHERE (\(order)) > (?, ?, ?, ?, ?, ?)"
            let position = cursor.position
            _ = arguments.append(contentsOf: [
                position.p, -cursor.sortKey, position.r, position.n, position.f, position.i,
            ])
        }
        _ = arguments.append(contentsOf: [limit + 1, offset])
        let pageSQL = shown + """
            , page AS (SELECT * FROM shown \(filter) ORDER BY \(order) LIMIT ? OFFSET ?)
            SELECT page.pending, page.sort_key AS shown_sort_key, page.feed_rank, item.*
            FROM page JOIN item ON item.rowid = page.rid
            ORDER BY page.pending, page.neg_key, page.feed_rank, page.feed_position, page.feed, page.id
            """
        let rows = try Row.fetchAll(db, sql: pageSQL, arguments: arguments)

        let pageRows = rows.prefix(limit)
        var entries: [StreamEntry] = []
        var dedupKeys: [String] = []
        for row in pageRows {
            let feed = try row.decode(String.self, forColumn: "feed")
            entries.append(
                StreamEntry(
                    item: try ItemColumns.item(from: row), feed: feed, feeds: [feed], source: sourceByFeed[feed] ?? ""))
            dedupKeys.append(try row.decode(String.self, forColumn: "dedup_key"))
        }
        // Every listed feed carrying each entry, in feed order.
        if !dedupKeys.isEmpty {
            var carriers: [String: Set<String>] = [:]
            let placeholders = dedupKeys.map { _ in "?" }.joined(separator: ", ")
            for row in try Row.fetchAll(
                db, sql: "SELECT DISTINCT dedup_key, feed FROM item WHERE staged = 0 AND dedup_key IN (\(placeholders))",
                arguments: StatementArguments(dedupKeys))
            {
                let feed = try row.decode(String.self, forColumn: "feed")
                guard rankByFeed[feed] != nil else { continue }
                carriers[try row.decode(String.self, forColumn: "dedup_key"), default: []].insert(feed)
            }
            for index in entries.indices {
                let feeds = carriers[dedupKeys[index]] ?? [entries[index].feed]
                entries[index].feeds = feeds.sorted { (rankByFeed[$0] ?? 0) < (rankByFeed[$1] ?? 0) }
            }
        }

        var nextCursor: String?
        if rows.count > limit, let last = pageRows.last {
            let sortKey = try last.decode(Double?.self, forColumn: "shown_sort_key")
            let position = StreamCursor.Position(
                v: 1, p: try last.decode(Int.self, forColumn: "pending"),
                k: String((sortKey ?? 0).bitPattern, radix: 16),
                r: try last.decode(Int.self, forColumn: "feed_rank"),
                n: try last.decode(Int64.self, forColumn: "feed_position"),
                f: try last.decode(String.self, forColumn: "feed"), i: try last.decode(String.self, forColumn: "id"))
            nextCursor = try StreamCursor(position: position).token
        }
        return StoredStreamPage(
            entries: entries, totalItems: total, perPage: limit, totalPages: (total + limit - 1) / limit, page: page,
            nextCursor: nextCursor)
    }
}
