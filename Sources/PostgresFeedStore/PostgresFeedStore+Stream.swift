// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedCore
public import FeedStorage
import Foundation
import PostgresNIO

/// The stream on PostgreSQL: the same order, de-duplication and cursor as SQLite's (a token written
/// by one engine reads the same on the other), read in O(page) from the order kept at write time
/// (``PostgresStreamScan``); `total_items` comes from the maintained counts.
extension PostgresFeedStore {
    /// Entries after `cursor` (from the top when `nil`), at most `limit`; see ``StoreDriver``.
    public func stream(
        feeds: [String], sources: [String]?, selection: StreamSelection, after cursor: StreamCursor?, limit: Int
    ) throws -> StoredStreamPage {
        let limit = max(1, limit)
        if !selection.narrows,
            let page = try oneStatementPage(
                feeds: feeds, sources: sources, selection: selection, after: cursor, limit: limit, page: nil)
        {
            return page
        }
        if selection.narrows,
            let page = try oneStatementSearchPage(
                feeds: feeds, sources: sources, selection: selection, after: cursor, limit: limit, page: nil)
        {
            return page
        }
        return try session("read the stream") { db in
            let scan = try await Self.scan(
                db, feeds: feeds, sources: sources, selection: selection,
                candidateLimit: self.searchCandidateLimit.load(ordering: .relaxed), feedTable: self.feedTable)
            var rows: [PostgresStreamScan.Row] = []
            try await scan.walk(after: cursor.map(StreamOrderKey.init), batch: limit + 1) { row in
                rows.append(row)
                return rows.count <= limit
            }
            let total = try await scan.totalItems(repeats: self.repeatsCache, totals: self.totalsCache, documents: self.searchDocuments)
            return try Self.page(rows.prefix(limit), more: rows.count > limit, total: total, perPage: limit, page: nil, scan: scan)
        }
    }

    /// ``StoreDriver/awaitStreamPage(feeds:sources:selection:after:limit:onCallersPool:)``: the
    /// one-statement pages (after a cursor, or page 1), awaited with ``readTimeout``; `nil` when the
    /// page needs the transaction read (``stream(feeds:sources:selection:after:limit:)``).
    /// The one-statement pages are awaited.
    public var awaitsStreamPages: Bool { true }

    public func awaitStreamPage(
        feeds: [String], sources: [String]?, selection: StreamSelection, after cursor: StreamCursor?, limit: Int,
        onCallersPool: Bool
    ) async throws -> StoredStreamPage? {
        let limit = max(1, limit)
        let page = cursor == nil ? 1 : nil
        let body =
            selection.narrows
            ? oneStatementSearchRead(feeds: feeds, sources: sources, selection: selection, after: cursor, limit: limit, page: page)
            : oneStatementRead(feeds: feeds, sources: sources, selection: selection, after: cursor, limit: limit, page: page)
        guard let body else { return nil }
        return try await asyncRead("read the stream", onCallersPool: onCallersPool, body)
    }

    /// The page ``stream(feeds:sources:selection:after:limit:)`` asks for (or page 1, numbered
    /// `page`), read in one statement without a transaction when the kept feed table and repeats
    /// are current and one batch fills it; `nil` otherwise.
    private func oneStatementPage(
        feeds: [String], sources: [String]?, selection: StreamSelection, after cursor: StreamCursor?, limit: Int,
        page: Int?
    ) throws -> StoredStreamPage? {
        try read(
            "read the stream",
            oneStatementRead(feeds: feeds, sources: sources, selection: selection, after: cursor, limit: limit, page: page))
    }

    /// The read of ``oneStatementPage(feeds:sources:selection:after:limit:page:)`` on a connection
    /// (``PostgresStreamScan/oneStatementPage(after:limit:repeats:)``), for a blocking or an
    /// awaited caller.
    private func oneStatementRead(
        feeds: [String], sources: [String]?, selection: StreamSelection, after cursor: StreamCursor?, limit: Int,
        page: Int?
    ) -> @Sendable (PostgresConnection) async throws -> StoredStreamPage? {
        { db in
            let (table, scan) = try await self.keptScan(db, feeds: feeds, sources: sources, selection: selection)
            let kept = self.repeatsCache.remembered(scan.ranked, at: table.version)
            guard
                let read = try await scan.oneStatementPage(after: cursor.map(StreamOrderKey.init), limit: limit, repeats: kept)
            else { return nil }
            if kept == nil { self.repeatsCache.remember(read.repeats, of: scan.ranked, at: read.changeNumber) }
            // A change since the kept table: its listing and counts may be stale.
            guard read.changeNumber == table.version else { return nil }
            let total = Int(scan.visibleItems) - read.repeats
            self.oneStatementPages.add(1, ordering: .relaxed)
            return try Self.page(read.rows, more: read.more, total: total, perPage: limit, page: page, scan: scan)
        }
    }

    /// The page of a words-only search of every stored feed in one statement, without a
    /// transaction (``oneStatementSearchRead(feeds:sources:selection:after:limit:page:)``); `nil`
    /// when that cannot read it.
    private func oneStatementSearchPage(
        feeds: [String], sources: [String]?, selection: StreamSelection, after cursor: StreamCursor?, limit: Int,
        page: Int?
    ) throws -> StoredStreamPage? {
        guard
            let body = oneStatementSearchRead(
                feeds: feeds, sources: sources, selection: selection, after: cursor, limit: limit, page: page)
        else { return nil }
        return try read("read the stream", body)
    }

    /// The read of a words-only search's page in one statement, for a blocking or an awaited
    /// caller: `nil` (no connection taken) unless the kept feed table is current, the search's
    /// count is known — kept for this change number (``StreamTotalsCache``: a reader paging
    /// through a search counted it on its first page) or counted from kept sets
    /// (``PostgresSearchDocuments/KeptSets``, no statement for a frequent word) — and its matches
    /// are dense enough (``OneStatementSearch/expectedRows``). The read returns `nil` when the
    /// statement read fewer than a page and one (the general read walks on, or ends the stream).
    private func oneStatementSearchRead(
        feeds: [String], sources: [String]?, selection: StreamSelection, after cursor: StreamCursor?, limit: Int,
        page: Int?
    ) -> (@Sendable (PostgresConnection) async throws -> StoredStreamPage?)? {
        // Decided before taking a connection: a search not dense by its kept words, or a cold
        // handle, goes the general way at once.
        guard let set = selection.textOnly, let table = feedTable.current else { return nil }
        let ranked = StreamRanking.ranked(feeds, sourceByFeed: table.sourceByFeed, sources: sources)
        let visible = ranked.reduce(0) { $0 + Int(table.visibleByFeed[$1] ?? 0) }
        let wanted = limit + 1 + PostgresStreamScan.oneStatementSlack
        let expected = OneStatementSearch.expectedRows
        let dense = max(1, (wanted * visible + expected - 1) / expected)
        guard !ranked.isEmpty, ranked.count == table.sourceByFeed.count else { return nil }
        // The pages after the first of a search whose words were never read as sets (asked once,
        // counted in SQL): the total kept at this change number says how dense the matches are.
        let known =
            selection.isFixedBetweenChanges
            ? totalsCache.remembered(StreamTotalsKey(listing: ranked, selection: selection), at: table.version) : nil
        let kept =
            known == nil
            ? PostgresSearchDocuments.KeptSets(set, listing: ranked, at: table.version, documents: searchDocuments) : nil
        guard (known ?? kept?.bound ?? 0) >= dense else { return nil }
        return { db in
            let scan = PostgresStreamScan(
                db, ranked: ranked, sourceByFeed: table.sourceByFeed, visibleByFeed: table.visibleByFeed,
                changeNumber: table.version, selection: selection)
            var total = known
            if total == nil, let kept { total = try await kept.count(on: db, atLeast: dense)?.entries }
            guard let total,
                let walk = try await scan.oneStatementWalk(
                    reverse: false, after: cursor.map(StreamOrderKey.init), rows: wanted, repeats: 0,
                    search: OneStatementSearch(query: PostgresSelectionDialect().rowQuery(set))),
                walk.changeNumber == table.version, walk.shown.count > limit
            else { return nil }
            self.oneStatementSearchPages.add(1, ordering: .relaxed)
            return try Self.page(
                walk.shown.prefix(limit), more: true, total: total, perPage: limit, page: page, scan: scan)
        }
    }

    /// The scan of a one-statement read: over the kept feed table, which may be older than the
    /// store (the statement's change number tells). Cold (a one-shot `show`, a server's first
    /// read), the table is read first, on its own.
    private func keptScan(
        _ db: PostgresConnection, feeds: [String], sources: [String]?, selection: StreamSelection
    ) async throws -> (PostgresFeedTable.Snapshot, PostgresStreamScan) {
        let table = if let kept = feedTable.current { kept } else { try await feedTable.read(db) }
        let scan = PostgresStreamScan(
            db, ranked: StreamRanking.ranked(feeds, sourceByFeed: table.sourceByFeed, sources: sources),
            sourceByFeed: table.sourceByFeed, visibleByFeed: table.visibleByFeed, changeNumber: table.version,
            selection: selection)
        return (table, scan)
    }

    /// Page `page` (past the first) of an unnarrowed listing, walked from the nearer end in one
    /// statement when the kept feed table is current and the walk is short (the last pages, the
    /// first few); `nil` otherwise. The total comes first (the kept counts, or one statement for
    /// the repeats with its change number), since it places the page.
    private func oneStatementNumberedPage(
        feeds: [String], sources: [String]?, selection: StreamSelection, page: Int, perPage: Int
    ) throws -> StoredStreamPage? {
        try read("read the stream") { db in
            let (table, scan) = try await self.keptScan(db, feeds: feeds, sources: sources, selection: selection)
            guard !scan.ranked.isEmpty else { return nil }
            let repeats: Int
            if let kept = self.repeatsCache.remembered(scan.ranked, at: table.version) {
                repeats = kept
            } else {
                var binds = PostgresBindings()
                binds.append(scan.ranked)
                let row = try await db.row(
                    PostgresQuery(unsafeSQL: PostgresStreamScan.versionedRepeatsStatement, binds: binds))
                guard let row, try row.get("version", Int64.self) == table.version else { return nil }
                repeats = self.repeatsCache.remember(
                    Int(try row.get("repeats", Int64.self)), of: scan.ranked, at: table.version)
            }
            let total = Int(scan.visibleItems) - repeats
            var window = StreamPageWindow<PostgresStreamScan.Row>(page: page, perPage: perPage, total: total)
            let wanted = window.reach + PostgresStreamScan.oneStatementSlack
            guard !window.isEmpty, wanted <= PostgresStreamScan.maximumBatch,
                let walk = try await scan.oneStatementWalk(
                    reverse: window.fromBottom, after: nil, rows: wanted, repeats: repeats),
                walk.changeNumber == table.version
            else { return nil }
            for row in walk.shown {
                guard window.take(row) else { break }
            }
            // Short of the page: the slack went to hidden rows; the general read walks on.
            guard window.rows.count == window.count else { return nil }
            self.oneStatementPages.add(1, ordering: .relaxed)
            return try Self.page(
                window.rows[...], more: window.more, total: total, perPage: window.perPage, page: window.page, scan: scan)
        }
    }

    /// Page `page` (1-based) of the stream, `perPage` entries per page: walked from whichever end
    /// of the stream is nearer (the last page costs what the first does).
    public func stream(
        feeds: [String], sources: [String]?, selection: StreamSelection, page: Int, perPage: Int
    ) throws -> StoredStreamPage {
        // Page 1 is the page after no cursor, numbered.
        if page <= 1, !selection.narrows,
            let first = try oneStatementPage(
                feeds: feeds, sources: sources, selection: selection, after: nil, limit: max(1, perPage), page: 1)
        {
            return first
        }
        if page <= 1, selection.narrows,
            let first = try oneStatementSearchPage(
                feeds: feeds, sources: sources, selection: selection, after: nil, limit: max(1, perPage), page: 1)
        {
            return first
        }
        if page > 1, !selection.narrows,
            let numbered = try oneStatementNumberedPage(
                feeds: feeds, sources: sources, selection: selection, page: page, perPage: perPage)
        {
            return numbered
        }
        return try session("read the stream") { db in
            let scan = try await Self.scan(
                db, feeds: feeds, sources: sources, selection: selection,
                candidateLimit: self.searchCandidateLimit.load(ordering: .relaxed), feedTable: self.feedTable)
            let total = try await scan.totalItems(repeats: self.repeatsCache, totals: self.totalsCache, documents: self.searchDocuments)
            var window = StreamPageWindow<PostgresStreamScan.Row>(page: page, perPage: perPage, total: total)
            if !window.isEmpty {
                try await scan.walk(reverse: window.fromBottom, batch: window.reach) { window.take($0) }
            }
            return try Self.page(
                window.rows[...], more: window.more, total: total, perPage: window.perPage, page: window.page, scan: scan)
        }
    }

    /// The scan of the listing `feeds` (narrowed to `sources`) asks for.
    ///
    /// A narrowed read turns JIT compilation off for its transaction (`SET LOCAL jit = off`): a
    /// search's count is the kind of statement whose estimated cost passes `jit_above_cost`, and
    /// compiling it cost more than it saved (20–60 ms of LLVM emission on counts of 10–300 ms, and
    /// about 20 ms more to load the JIT provider in each new backend, which is every one-shot
    /// `show`). Set per transaction, not as a startup parameter, which poolers such as PgBouncer
    /// refuse unless told to ignore it.
    static func scan(
        _ db: PostgresConnection, feeds: [String], sources: [String]?, selection: StreamSelection = .everything,
        candidateLimit: Int = PostgresStreamScan.candidateLimit, feedTable: PostgresFeedTable
    ) async throws -> PostgresStreamScan {
        if selection.narrows { try await db.exec("SET LOCAL jit = off") }
        let table = try await feedTable.read(db)
        return PostgresStreamScan(
            db, ranked: StreamRanking.ranked(feeds, sourceByFeed: table.sourceByFeed, sources: sources),
            sourceByFeed: table.sourceByFeed, visibleByFeed: table.visibleByFeed, changeNumber: table.version,
            selection: selection, candidateLimit: candidateLimit)
    }

    /// The page of `rows` (shown entries in stream order), with the cursor after the last one when
    /// `more` entries follow.
    static func page(
        _ rows: ArraySlice<PostgresStreamScan.Row>, more: Bool, total: Int, perPage: Int, page: Int?,
        scan: PostgresStreamScan
    ) throws -> StoredStreamPage {
        var entries: [StreamEntry] = []
        entries.reserveCapacity(rows.count)
        for row in rows {
            entries.append(
                StreamEntry(
                    item: row.item, feed: row.key.feed, feeds: row.feeds, source: scan.sourceByFeed[row.key.feed] ?? "",
                    firstSeen: row.firstSeen))
        }
        let nextCursor = more ? try rows.last?.key.cursor() : nil
        return StoredStreamPage(
            entries: scan.selection.tagged(entries), totalItems: total, perPage: perPage, totalPages: (total + perPage - 1) / perPage, page: page,
            nextCursor: nextCursor)
    }
}

#endif
