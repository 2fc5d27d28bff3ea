// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedSearch
import FeedStorage
import PostgresNIO

/// PostgreSQL's reads of a search's sets (``SearchDocumentCache``): a term's rows are the `doc`
/// keys (schema `v6`) of the visible rows its `tsquery` matches; the entry sets come from the
/// shared rows.
///
/// Reading a frequent word's keys costs about as much as counting it (every matching heap row,
/// about 200 ms for 100,000 rows at 1,000,000 items), so a term is read in full only when it is
/// kept already, small (under ``SearchDocumentCache/keptTermMinimum`` rows, read with that limit),
/// or asked for the second time since the store changed; the entry sets are read on the second
/// count since the change. A one-shot `show` counts in SQL as before, reading no set, and a server
/// reads each frequent word once per change.
enum PostgresSearchDocuments {
    /// The entries among the rows of `set` at the scan's change number, from sets; `nil` when a
    /// frequent term is not kept yet (the caller counts in SQL).
    static func count(_ set: TextSet, scan: PostgresStreamScan, documents: SearchDocumentCache) async throws -> Int? {
        // The entry sets, too, are read on the second count of the listing since the change: a
        // one-shot `show` reads neither them nor any term's rows.
        if documents.entries.remembered(scan.ranked, at: scan.changeNumber) == nil,
            documents.keptTermMinimum.load(ordering: .relaxed) > 0
        {
            let key = "\u{0}entries\u{0}" + scan.ranked.joined(separator: "\u{0}")
            guard documents.asked.remembered(key, at: scan.changeNumber) != nil else {
                documents.asked.remember(true, of: key, at: scan.changeNumber)
                return nil
            }
        }
        var found: [SearchQuery.TextTerm: DocumentSet] = [:]
        for term in set.terms where found[term] == nil {
            guard let rows = try await rows(of: term, scan: scan, documents: documents) else { return nil }
            found[term] = rows
        }
        guard let matches = set.documents({ found[$0] ?? .empty }) else { return nil }
        let entries = try await documents.entries.value(of: scan.ranked, at: scan.changeNumber) {
            try await Self.entries(scan)
        }
        return entries.count(matches)
    }

    /// The rows holding `term`: kept, or read (see the type's description); `nil` for a frequent
    /// term asked for the first time.
    private static func rows(
        of term: SearchQuery.TextTerm, scan: PostgresStreamScan, documents: SearchDocumentCache
    ) async throws -> DocumentSet? {
        let expression = PostgresSelectionDialect().indexQuery(.term(term))
        if let kept = documents.terms.remembered(expression, at: scan.changeNumber) { return kept }
        let minimum = documents.keptTermMinimum.load(ordering: .relaxed)
        let askedBefore = documents.asked.remembered(expression, at: scan.changeNumber) != nil
        if !askedBefore { documents.asked.remember(true, of: expression, at: scan.changeNumber) }
        if !askedBefore && minimum > 0 {
            guard let read = try await keys(of: expression, limit: minimum, on: scan.db) else { return nil }
            if read.rows >= minimum { documents.terms.remember(read.set, of: expression, at: scan.changeNumber) }
            return read.set
        }
        // A full read: one at a time per term and change (the others wait for it).
        let shared = try await documents.termReads.value(of: "\(scan.changeNumber)\u{0}\(expression)") {
            guard let read = try await keys(of: expression, limit: nil, on: scan.db) else { return nil }
            if read.rows >= minimum { documents.terms.remember(read.set, of: expression, at: scan.changeNumber) }
            return read.set
        }
        return shared ?? documents.terms.remembered(expression, at: scan.changeNumber)
    }

    /// The keys of the visible rows the `tsquery` `expression` matches, and how many rows held
    /// them; `nil` when there are more than `limit`.
    private static func keys(of expression: String, limit: Int?, on db: PostgresConnection) async throws
        -> (set: DocumentSet, rows: Int)?
    {
        var binds = PostgresBindings()
        binds.append(expression)
        let limitText = limit.map { " LIMIT \($0 + 1)" } ?? ""
        let rows = try await db.rows(
            PostgresQuery(unsafeSQL: "SELECT doc FROM item WHERE search @@ $1::tsquery AND NOT staged\(limitText)", binds: binds))
        if let limit, rows.count > limit { return nil }
        var keys: [Int64] = []
        keys.reserveCapacity(rows.count)
        for row in rows {
            var columns = PostgresColumns(row)
            keys.append(try columns.next(Int64.self))
        }
        // `doc` has no unique index (an identity column gives each insert its own): a repeat
        // would only come from a writer giving keys itself, and is dropped.
        keys.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(keys.count)
        for key in keys where unique.last != key { unique.append(key) }
        return (DocumentSet(ascending: unique), keys.count)
    }

    /// What is kept of a words-only search at one change number, for a read outside the listing's
    /// transaction (``PostgresFeedStore``'s one-statement search page): the entry sets, the
    /// frequent terms' rows, and what the frequent terms alone say of the query's rows, all known
    /// without a statement. Nothing read from it is kept: outside the transaction a read may see a
    /// later change, which the caller's statement rules out after the fact (its change number must
    /// be this one).
    struct KeptSets: Sendable {
        let set: TextSet
        let entries: EntryDocuments
        let kept: [SearchQuery.TextTerm: DocumentSet]
        /// The terms not kept, by their `tsquery`.
        let unkept: [SearchQuery.TextTerm: String]
        let minimum: Int
        /// The rows of the query as far as its kept terms tell: their counts summed for an `OR`,
        /// the least for an `AND`, an unkept term (fewer rows than the minimum, or unread) counting
        /// none. A query dense only through its rare words (`zanzibar OR zz1`, and a 50,000-item
        /// store's density is 2,700 rows) takes the general read at once instead of reading its
        /// words twice, here and there.
        let bound: Int

        /// `nil` when the listing's entry sets are not kept at `version`, or a term is unkept while
        /// every term is kept once read (a minimum of 0: it is unread).
        init?(_ set: TextSet, listing: [String], at version: Int64, documents: SearchDocumentCache) {
            guard let entries = documents.entries.remembered(listing, at: version) else { return nil }
            let minimum = documents.keptTermMinimum.load(ordering: .relaxed)
            var kept: [SearchQuery.TextTerm: DocumentSet] = [:]
            var unkept: [SearchQuery.TextTerm: String] = [:]
            for term in set.terms where kept[term] == nil && unkept[term] == nil {
                let expression = PostgresSelectionDialect().indexQuery(.term(term))
                if let rows = documents.terms.remembered(expression, at: version) {
                    kept[term] = rows
                } else {
                    unkept[term] = expression
                }
            }
            if !unkept.isEmpty && minimum == 0 { return nil }
            func bound(_ set: TextSet) -> Int {
                switch set {
                case .term(let term): kept[term]?.count ?? 0
                case .all(let parts): parts.map(bound).min() ?? 0
                case .any(let parts): parts.reduce(0) { $0 + bound($1) }
                }
            }
            (self.set, self.entries, self.kept, self.unkept, self.minimum) = (set, entries, kept, unkept, minimum)
            self.bound = bound(set)
        }

        /// The query's rows and entries, reading the unkept terms' rows (each fewer than the
        /// minimum, or `nil`); `nil` too when the rows are fewer than `atLeast`, or when the kept
        /// terms alone tell fewer (then without a statement).
        func count(on db: PostgresConnection, atLeast: Int) async throws -> (matches: Int, entries: Int)? {
            guard bound >= atLeast else { return nil }
            var found = kept
            for (term, expression) in unkept {
                guard let read = try await PostgresSearchDocuments.keys(of: expression, limit: minimum, on: db) else {
                    return nil
                }
                found[term] = read.set
            }
            guard let matches = set.documents({ found[$0] ?? .empty }), matches.count >= atLeast else { return nil }
            return (matches.count, entries.count(matches))
        }
    }

    /// The entry sets of the scan's listing (every stored feed).
    private static func entries(_ scan: PostgresStreamScan) async throws -> EntryDocuments {
        var builder = EntryDocuments.Builder(rankByFeed: scan.rankByFeed)
        for row in try await scan.db.rows(
            "SELECT dedup_key, feed, feed_position, id, doc FROM item WHERE shared AND NOT staged ORDER BY dedup_key")
        {
            var columns = PostgresColumns(row)
            builder.add(
                dedupKey: try columns.next(String.self), feed: try columns.next(String.self),
                position: try columns.next(Int64.self), id: try columns.next(String.self), doc: try columns.next(Int64.self))
        }
        return builder.finish()
    }
}

#endif
