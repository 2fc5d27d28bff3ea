import FeedCore
public import FeedStorage
public import Foundation
import GRDB

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
        feeds: [String], sources: [String]?, selection: StreamSelection, after cursor: StreamCursor?, limit: Int
    ) throws -> StoredStreamPage {
        try reading("read the stream") { db in
            let listing = try StreamListing.cached(db, feeds: feeds, sources: sources, in: listingCache)
            let limit = max(1, limit)
            let matches = try listing.matches(db, selection: selection, documents: searchDocuments)
            let scan = try StreamScan(
                db, listing: listing, selection: selection, candidateLimit: searchCandidateLimit.load(ordering: .relaxed),
                matches: matches)
            var rows: [StreamScan.Row] = []
            try scan.walk(
                after: cursor.map(StreamOrderKey.init), wanted: limit + 1,
                entries: { try listing.totalItems(db, repeats: repeatsCache) }, reset: { rows.removeAll() },
                budget: searchWalkBudget
            ) { row in
                rows.append(row)
                return rows.count <= limit
            }
            return try Self.page(
                rows.prefix(limit), more: rows.count > limit, scan: scan,
                total: try listing.totalItems(
                    db, selection: selection, repeats: repeatsCache, totals: totalsCache, documents: searchDocuments,
                    matches: matches),
                perPage: limit, page: nil, selection: selection, in: db)
        }
    }

    /// The walk budget tests set (``StreamScan/walk(reverse:after:wanted:entries:reset:budget:_:)``);
    /// `nil` when unset.
    private var searchWalkBudget: Int? {
        let budget = searchWalkBudgetOverride.load(ordering: .relaxed)
        return budget > 0 ? budget : nil
    }

    /// Page `page` (1-based) of the stream, `perPage` entries per page; see ``stream(feeds:sources:after:limit:)``.
    public func stream(
        feeds: [String], sources: [String]?, selection: StreamSelection, page: Int, perPage: Int
    ) throws -> StoredStreamPage {
        try reading("read the stream") { db in
            let listing = try StreamListing.cached(db, feeds: feeds, sources: sources, in: listingCache)
            let matches = try listing.matches(db, selection: selection, documents: searchDocuments)
            let total = try listing.totalItems(
                db, selection: selection, repeats: repeatsCache, totals: totalsCache, documents: searchDocuments,
                matches: matches)
            let scan = try StreamScan(
                db, listing: listing, selection: selection, candidateLimit: searchCandidateLimit.load(ordering: .relaxed),
                matches: matches)
            var window = StreamPageWindow<StreamScan.Row>(page: page, perPage: perPage, total: total)
            if !window.isEmpty {
                try scan.walk(
                    reverse: window.fromBottom, wanted: window.reach,
                    entries: { try listing.totalItems(db, repeats: repeatsCache) },
                    reset: { window = StreamPageWindow(page: page, perPage: perPage, total: total) },
                    budget: searchWalkBudget
                ) { window.take($0) }
            }
            return try Self.page(
                window.rows[...], more: window.more, scan: scan, total: total, perPage: window.perPage,
                page: window.page, selection: selection, in: db)
        }
    }

    /// The page of `rows` (shown entries in stream order): their full items, the feeds carrying each,
    /// and the cursor after the last one when `more` entries follow.
    private static func page(
        _ rows: ArraySlice<StreamScan.Row>, more: Bool, scan: StreamScan, total: Int, perPage: Int, page: Int?,
        selection: StreamSelection, in db: Database
    ) throws -> StoredStreamPage {
        var items: [Int64: (item: FeedItem, firstSeen: Date?)] = [:]
        if !rows.isEmpty {
            let placeholders = rows.map { _ in "?" }.joined(separator: ", ")
            let statement = try db.cachedStatement(
                sql: "SELECT rowid, first_seen_at, \(ItemColumns.shown) FROM item WHERE rowid IN (\(placeholders))")
            let stepped = try Row.fetchCursor(statement, arguments: StatementArguments(rows.map(\.rowid)))
            items.reserveCapacity(rows.count)
            while try stepped.next() != nil {
                let columns = StatementColumns(statement)
                guard let rowid = columns.int64(0) else { continue }
                items[rowid] = (
                    try ItemColumns.item(from: columns, at: 2), columns.double(1).map(Date.init(timeIntervalSince1970:))
                )
            }
        }
        var entries: [StreamEntry] = []
        entries.reserveCapacity(rows.count)
        for row in rows {
            guard let (item, firstSeen) = items[row.rowid] else { continue }
            entries.append(
                StreamEntry(
                    item: item, feed: row.feed, feeds: scan.carriers[row.rowid] ?? [row.feed],
                    source: scan.listing.sourceByFeed[row.feed] ?? "", firstSeen: firstSeen))
        }
        var nextCursor: String?
        if more, let last = rows.last {
            nextCursor = try last.key.cursor()
        }
        return StoredStreamPage(
            entries: selection.tagged(entries), totalItems: total, perPage: perPage, totalPages: (total + perPage - 1) / perPage, page: page,
            nextCursor: nextCursor)
    }
}

extension FeedStore {
    /// When the store first saw each of `items` (feed name, item id), for entries read from the
    /// network rather than from the stream (``StreamEntry/firstSeen`` is set on stream pages);
    /// items not stored (or still staged) are absent from the result.
    public func firstSeen(_ items: [(feed: String, id: String)]) throws -> [String: [String: Date]] {
        guard !items.isEmpty else { return [:] }
        return try reading("read first-seen times") { db in
            var seen: [String: [String: Date]] = [:]
            for item in items {
                if let value = try Double.fetchOne(
                    db, sql: "SELECT first_seen_at FROM item WHERE feed = ? AND id = ? AND staged = 0",
                    arguments: [item.feed, item.id])
                {
                    seen[item.feed, default: [:]][item.id] = Date(timeIntervalSince1970: value)
                }
            }
            return seen
        }
    }
}
