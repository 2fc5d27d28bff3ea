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
        var binds = PostgresBindings()
        binds.append(expression)
        let limit = askedBefore || minimum == 0 ? "" : " LIMIT \(minimum + 1)"
        let rows = try await scan.db.rows(
            PostgresQuery(unsafeSQL: "SELECT doc FROM item WHERE search @@ $1::tsquery AND NOT staged\(limit)", binds: binds))
        if !limit.isEmpty, rows.count > minimum { return nil }
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
        let set = DocumentSet(ascending: unique)
        if keys.count >= minimum { documents.terms.remember(set, of: expression, at: scan.changeNumber) }
        return set
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
