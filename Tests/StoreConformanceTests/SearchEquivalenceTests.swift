import DeterministicRandom
import FeedCore
import FeedSearch
import FeedStorage
import FeedaggTesting
import Foundation
import Synchronization
import Testing

#if PostgreSQL
    import PostgresFeedStore
#endif

@testable import FeedStore

/// Search and filter rules on both engines (issue 28): random stores, random queries of every
/// construct of the language and random rule sets, read by cursor and by page number, against
/// the reference computed from every stored row (``SearchReference``), and SQLite against
/// PostgreSQL for the same commits.
@Suite("Search and filter rules equal the reference evaluator, on both engines")
struct SearchEquivalenceTests {
    /// The time ages count back from (a few days after the random stores' dates).
    static let now = Date(timeIntervalSince1970: 1_700_000_000 + 6 * 86_400)

    /// The selections tried on the store of `seed`: random queries without rules, then random
    /// rule sets with and without a query.
    static func selections(seed: Int, count: Int) throws -> [(text: String, selection: StreamSelection)] {
        var random = SplitMix(state: UInt64(seed) &* 7919)
        var selections: [(String, StreamSelection)] = []
        for index in 0..<count {
            let text = RandomSearchText.query(using: &random)
            let query = try SearchQuery(parsing: text)
            var rules = FilterRules.none
            var described = ""
            if index % 3 != 0 {
                var global: [FilterRule] = []
                var feeds: [String: [FilterRule]] = [:]
                for rule in RandomSearchText.rules(using: &random) {
                    let action: FilterRule.Action =
                        rule.action == "drop" ? .drop : rule.action == "keep" ? .keep : .tag(String(rule.action.dropFirst(4)))
                    let parsed = FilterRule(action, query: try SearchQuery(parsing: rule.query), text: rule.query)
                    if let scope = rule.scope { feeds[scope, default: []].append(parsed) } else { global.append(parsed) }
                    described += " [\(rule.scope ?? "*") \(rule.action): \(rule.query)]"
                }
                rules = FilterRules(global: global, feeds: feeds)
            }
            let withQuery = index % 3 != 1
            selections.append(
                ((withQuery ? text : "") + described,
                 StreamSelection(query: withQuery ? query : .everything, rules: rules, now: now)))
        }
        return selections
    }

    /// One query per construct of the grammar (docs/query.md), each field with each kind of text.
    static let constructs = [
        "swift", "SWIFT café", "naive", "file", "full", "日本語", "serv*", "\"server side\"", "\"server si\"*", "node.js",
        "title:swift", "title:serv*", "title:\"server side\"", "summary:swift", "summary:lopes", "summary:\"node js\"",
        "author:lopes", "author:\"ana lopes\"", "author:zo*", "title:lopes", "feed:alpha", "feed:beta", "feed:unknown",
        "source:github.repos", "source:photos.500px", "after:2023-11-16", "before:2023-11-18", "newer:3d", "older:5d",
        "-swift", "-feed:alpha", "swift OR rust", "swift rust", "-(swift OR rust) linux", "(café OR \"server side\") -author:bob",
        "feed:beta -summary:full OR newer:2d",
    ]

    static func constructSelections() throws -> [(text: String, selection: StreamSelection)] {
        try constructs.map { ($0, StreamSelection(query: try SearchQuery(parsing: $0), now: now)) }
    }

    static func entries(_ page: StoredStreamPage) -> [SearchReference.Entry] {
        page.entries.map { SearchReference.Entry(feed: $0.feed, id: $0.item.id, feeds: $0.feeds, tags: $0.tags) }
    }

    /// Reads every listing of the store under each selection, walking by cursor, and expects the
    /// reference's entries and total; the last page and a middle one by page number too. Each page
    /// is read awaited too (``expectAwaitedPage(_:feeds:sources:selection:after:limit:equals:_:)``):
    /// returns how many the engine read so (in all, and of selections that narrow the stream).
    static func check(
        _ store: any StoreDriver, against reference: SearchReference, selections: [(text: String, selection: StreamSelection)],
        context: String
    ) async throws -> (pages: Int, searches: Int) {
        var awaited = (pages: 0, searches: 0)
        for (text, selection) in selections {
            for listing in RandomStreamStore.listings {
                do {
                    let pages = try await check(
                        store, against: reference, selection: selection, text: text, listing: listing, context: context)
                    awaited.pages += pages
                    if selection.narrows { awaited.searches += pages }
                } catch {
                    Issue.record("\(context), listing \(listing.feeds), selection «\(text)»: \(error)")
                }
            }
        }
        return awaited
    }

    static func check(
        _ store: any StoreDriver, against reference: SearchReference, selection: StreamSelection, text: String,
        listing: (feeds: [String], sources: [String]?), context: String
    ) async throws -> Int {
        var awaited = 0
        let expected = reference.entries(feeds: listing.feeds, sources: listing.sources, selection: selection)
        let where_ = "\(context), listing \(listing.feeds) \(listing.sources ?? []), selection «\(text)»"
        for limit in [4, 50] {
            var cursor: StreamCursor?
            var walked: [SearchReference.Entry] = []
            var steps = 0
            repeat {
                let page = try store.stream(
                    feeds: listing.feeds, sources: listing.sources, selection: selection, after: cursor, limit: limit)
                #expect(page.totalItems == expected.count, "\(where_), limit \(limit), step \(steps): total")
                let synchronous =
                    cursor == nil
                    ? try store.stream(feeds: listing.feeds, sources: listing.sources, selection: selection, page: 1, perPage: limit)
                    : page
                if try await expectAwaitedPage(
                    store, feeds: listing.feeds, sources: listing.sources, selection: selection, after: cursor, limit: limit,
                    equals: synchronous, "\(where_), limit \(limit), step \(steps)")
                {
                    awaited += 1
                }
                walked += entries(page)
                cursor = try page.nextCursor.map(StreamCursor.init)
                steps += 1
            } while cursor != nil && steps < 500
            #expect(walked == expected, "\(where_), limit \(limit)")
        }
        let perPage = 3
        let pages = max(1, (expected.count + perPage - 1) / perPage)
        for number in Set([1, (pages + 1) / 2, pages]) {
            let page = try store.stream(
                feeds: listing.feeds, sources: listing.sources, selection: selection, page: number, perPage: perPage)
            let slice = Array(expected.dropFirst((number - 1) * perPage).prefix(perPage))
            #expect(entries(page) == slice, "\(where_), page \(number)")
            #expect(page.totalItems == expected.count, "\(where_), page \(number): total")
        }
        return awaited
    }

    @Test(
        "SQLite: random queries and rules give the reference's entries, order, feeds, tags and totals, by the index's candidates and by walking",
        arguments: 1...10)
    func sqlite(seed: Int) async throws {
        let opened = try await StreamOrderEquivalenceTests.randomStore(.sqlite, seed: UInt64(seed))
        defer { opened.cleanup() }
        defer { try? opened.store.close() }
        let store = try #require(opened.store as? FeedStore)
        // Odd seeds walk the stream index for every search, testing each row's own text
        // (`feedagg_text_match`), as broad searches of big stores do; even seeds read and sort the
        // index's candidates, as these small stores otherwise always do.
        if seed % 2 == 1 { store.searchCandidateLimit.store(0, ordering: .relaxed) }
        // Seeds 3, 6 and 9 keep every term's rows between reads (`SearchDocumentCache`), as big
        // stores keep their frequent words, so the counts of later reads are made from kept sets.
        if seed % 3 == 0 { store.searchDocuments.keptTermMinimum.store(0, ordering: .relaxed) }
        // Even seeds, which read the index's candidates, walk the stream index first where the
        // query's rows are known, as big stores choose by the matches' density: 4 and 8 with room
        // to finish; 2 and 10 running out after 3 and 12 rows and reading the candidates after
        // all (SearchIndexTests.walkBudget runs out after handing entries over).
        if seed == 4 || seed == 8 { store.searchWalkBudgetOverride.store(1_000_000, ordering: .relaxed) }
        if seed == 2 || seed == 10 { store.searchWalkBudgetOverride.store(seed == 2 ? 3 : 12, ordering: .relaxed) }
        let reference = try SearchReference(store)
        let selections = try Self.selections(seed: seed, count: 24) + (seed <= 2 ? try Self.constructSelections() : [])
        let awaited = try await Self.check(store, against: reference, selections: selections, context: "sqlite seed \(seed)")
        #expect(awaited.pages == 0, "SQLite's reads block: none is awaited")
    }

    #if PostgreSQL
        @Test(
            "PostgreSQL: the same commits, queries and rules give SQLite's reference entries and totals, walking and by candidates",
            arguments: [3, 8])
        func postgres(seed: Int) async throws {
            let sqlite = try await StreamOrderEquivalenceTests.randomStore(.sqlite, seed: UInt64(seed))
            let postgres = try await StreamOrderEquivalenceTests.randomStore(.postgres, seed: UInt64(seed))
            defer {
                try? sqlite.store.close()
                try? postgres.store.close()
                sqlite.cleanup()
                postgres.cleanup()
            }
            let reference = try SearchReference(try #require(sqlite.store as? FeedStore))
            // Seed 3 walks the stream order for every search, testing each row's `tsvector`; seed 8
            // reads and sorts the GIN index's candidates, as these small stores otherwise always do.
            let store = try #require(postgres.store as? PostgresFeedStore)
            if seed == 3 { store.searchCandidateLimit.store(0, ordering: .relaxed) }
            // Words-only counts from sets of the rows' keys: seed 3 reads a term of two rows or more
            // on its second request (the first counts in SQL), seed 8 every term at once.
            store.searchDocuments.keptTermMinimum.store(seed == 3 ? 1 : 0, ordering: .relaxed)
            // Pages of a words-only search whose sets are kept are read in one statement.
            let awaited = try await Self.check(
                postgres.store, against: reference,
                selections: try Self.selections(seed: seed, count: 16) + Self.constructSelections(),
                context: "postgres seed \(seed)")
            // The synchronous reads, before the awaited ones, which count here too.
            #expect(
                store.oneStatementSearchPages.load(ordering: .relaxed) > awaited.searches, "no search page was read in one statement")
            // Words-only searches (whose sets are kept) are awaited too.
            #expect(awaited.searches > 0, "no search page was read awaited")
        }
    #endif
}
