#if PostgreSQL
    import FeedCore
    import FeedSearch
    import FeedStorage
    import FeedaggTesting
    import Foundation
    import PostgresFeedStore
    import Testing

    /// PostgreSQL's schema v4 on a database written before it: the migration writes every stored
    /// item's `tsvector` (and every staged update's) in batches, then builds the GIN index, so a
    /// search finds what was stored before search existed.
    @Suite("PostgreSQL v4: a store written before search is indexed by its migration")
    struct PostgresSearchMigrationTests {
        @Test("items stored before v4 are found; staged updates get their vectors too")
        func backFill() async throws {
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase("search_v4")
            let url = try PostgresURL(database.url)
            let day = Date(timeIntervalSince1970: 1_700_000_000)
            // More items than one back-fill batch, in two feeds.
            let count = 5_003
            do {
                let store = try PostgresFeedStore.open(url: url)
                defer { try? store.close() }
                for feed in ["a", "b"] {
                    let items = (0..<count).map { n in
                        FeedItem(
                            id: "\(n)", title: n == 4_999 ? "Crème brûlée \(feed)" : "item \(n)", summary: "number \(n)",
                            url: "https://h.test/\(feed)/\(n)", updated: day.addingTimeInterval(Double(n)))
                    }
                    try store.commitPull(
                        FeedPull(feed: feed, source: "test.items", items: items, complete: true,
                                 stats: PullStats(pages: 1, requests: 1), error: nil))
                }
                // A pull of b under way, with a changed title waiting in staged_update.
                guard case .fresh(let ticket) = try store.beginPull(
                    feed: "b", source: "test.items", fingerprint: "f", restart: true)
                else { Issue.record("no claim"); return }
                try store.stagePage(
                    AcceptedPage(number: 1, items: [FeedItem(id: "7", title: "Soufflé", url: "https://h.test/b/7", updated: day)]),
                    ticket: ticket)
            }
            // Back to a database as v3 left it: no search column, no index, v4 not applied.
            _ = try await cluster.psql(
                """
                DROP INDEX item_search; ALTER TABLE item DROP COLUMN search;
                ALTER TABLE staged_update DROP COLUMN search; DELETE FROM feedagg_migrations WHERE version = 'v4';
                """, database: database.name)
            let store = try PostgresFeedStore.open(url: url)
            defer { try? store.close() }
            #expect(try store.schemaVersions() == ["v1", "v2", "v3", "v4", "v5", "v6", "v7"])
            func ids(_ query: String) throws -> [String] {
                try store.stream(
                    feeds: ["a", "b"], sources: nil, selection: StreamSelection(query: try SearchQuery(parsing: query)),
                    after: nil, limit: 10
                ).entries.map { "\($0.feed)/\($0.item.id)" }
            }
            #expect(try ids("creme brulee") == ["a/4999", "b/4999"])
            #expect(try ids("summary:5002") == ["a/5002", "b/5002"])
            #expect(try ids("souffle") == [])
            let unindexed = try await cluster.psql(
                "SELECT COUNT(*) FROM item WHERE search IS NULL", database: database.name)
            #expect(unindexed == "0")
            // The staged update (applied when its pull ends) was given its vector too.
            let staged = try await cluster.psql(
                "SELECT COUNT(*), COUNT(search) FROM staged_update", database: database.name)
            #expect(staged == "1|1")
        }
    }

    /// PostgreSQL's schema v6: every item gets an integer key (`doc`), the stored ones from the
    /// migration, new ones from their insert; searches are counted from sets of these keys.
    @Suite("PostgreSQL v6: the items' keys, and searches counted from sets of them")
    struct SearchKeys {
        /// Feed `a`'s items 1 to `last`, a second apart (the newest last): the even ones titled
        /// `swift N`, the odd ones `go N`.
        static func alternatingPull(upTo last: Int) -> FeedPull {
            let day = Date(timeIntervalSince1970: 1_700_000_000)
            let items = (1...last).map {
                FeedItem(
                    id: "\($0)", title: $0 % 2 == 0 ? "swift \($0)" : "go \($0)", url: "https://h.test/\($0)",
                    updated: day.addingTimeInterval(Double($0)))
            }
            return FeedPull(
                feed: "a", source: "test.items", items: items, complete: true, stats: PullStats(pages: 1, requests: 1),
                error: nil)
        }

        @Test("items stored before v6 get distinct keys; counts from sets equal the statement's, before and after a commit")
        func keys() async throws {
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase("search_v6")
            let url = try PostgresURL(database.url)
            let day = Date(timeIntervalSince1970: 1_700_000_000)
            func commit(_ store: PostgresFeedStore, _ feed: String, _ items: [FeedItem]) throws {
                try store.commitPull(
                    FeedPull(feed: feed, source: "test.items", items: items, complete: true,
                             stats: PullStats(pages: 1, requests: 1), error: nil))
            }
            do {
                let store = try PostgresFeedStore.open(url: url)
                defer { try? store.close() }
                // b/1 carries a/1's URL: one entry of two rows, a's copy shown.
                try commit(store, "a", [
                    FeedItem(id: "1", title: "swift notes", url: "https://h.test/1", updated: day),
                    FeedItem(id: "2", title: "rust notes", url: "https://h.test/2", updated: day),
                    FeedItem(id: "3", title: "go notes", url: "https://h.test/3", updated: day),
                ])
                try commit(store, "b", [
                    FeedItem(id: "1", title: "plain copy", url: "https://h.test/1", updated: day),
                    FeedItem(id: "4", title: "swift again", url: "https://h.test/4", updated: day),
                ])
            }
            // Back to a database as v5 left it.
            _ = try await cluster.psql(
                "ALTER TABLE item DROP COLUMN doc; DELETE FROM feedagg_migrations WHERE version = 'v6';",
                database: database.name)
            let store = try PostgresFeedStore.open(url: url)
            defer { try? store.close() }
            #expect(try store.schemaVersions() == ["v1", "v2", "v3", "v4", "v5", "v6", "v7"])
            #expect(try await cluster.psql("SELECT COUNT(*), COUNT(doc), COUNT(DISTINCT doc) FROM item", database: database.name) == "5|5|5")
            func total(_ query: String) throws -> Int {
                try store.stream(
                    feeds: ["a", "b"], sources: nil, selection: StreamSelection(query: try SearchQuery(parsing: query)),
                    after: nil, limit: 10
                ).totalItems
            }
            let queries = ["swift", "swift OR rust", "notes", "plain", "swift OR plain", "notes swift"]
            let expected = [2, 3, 3, 0, 2, 1]
            // The first read of each counts in SQL (a term asked once); the second from sets.
            store.searchDocuments.keptTermMinimum.store(1, ordering: .relaxed)
            #expect(try queries.map(total) == expected)
            #expect(try queries.map(total) == expected)
            #expect(store.searchDocuments.terms.remembered("('swift')", at: try store.changeVersion()) != nil)
            // A new item gets its key from the insert, and the kept sets give way to the change.
            try commit(store, "b", [
                FeedItem(id: "1", title: "plain copy", url: "https://h.test/1", updated: day),
                FeedItem(id: "4", title: "swift again", url: "https://h.test/4", updated: day),
                FeedItem(id: "5", title: "swift too", url: "https://h.test/5", updated: day),
            ])
            #expect(try await cluster.psql("SELECT COUNT(*), COUNT(doc), COUNT(DISTINCT doc) FROM item", database: database.name) == "6|6|6")
            let after = [3, 4, 3, 0, 3, 1]
            #expect(try queries.map(total) == after)
            #expect(try queries.map(total) == after)
        }

        @Test("a search page read in one statement gives way to another handle's commit: its rows and total are read again")
        func oneStatementSearchFollowsCommits() async throws {
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase("search_v6_one_statement")
            let url = try PostgresURL(database.url)
            let store = try PostgresFeedStore.open(url: url)
            defer { try? store.close() }
            store.searchDocuments.keptTermMinimum.store(0, ordering: .relaxed)
            func commit(_ store: PostgresFeedStore, upTo last: Int) throws {
                try store.commitPull(Self.alternatingPull(upTo: last))
            }
            func firstPage() throws -> (ids: [String], total: Int) {
                let page = try store.stream(
                    feeds: ["a"], sources: nil, selection: StreamSelection(query: try SearchQuery(parsing: "swift")),
                    after: nil, limit: 3)
                return (page.entries.map(\.item.id), page.totalItems)
            }
            try commit(store, upTo: 20)
            // The first read keeps the sets; the second is one statement.
            #expect(try firstPage() == (["20", "18", "16"], 10))
            #expect(try firstPage() == (["20", "18", "16"], 10))
            #expect(store.oneStatementSearchPages.load(ordering: .relaxed) == 1)
            let writer = try PostgresFeedStore.open(url: url)
            defer { try? writer.close() }
            try commit(writer, upTo: 24)
            // This handle's kept table and sets are of the earlier change; the statement's number
            // tells, and the page is read again.
            #expect(try firstPage() == (["24", "22", "20"], 12))
            #expect(try firstPage() == (["24", "22", "20"], 12))
        }

        @Test("the pages after the first of a search counted in SQL are read in one statement: the total kept for the change says how dense it is")
        func oneStatementSearchPagesAfterACount() async throws {
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase("search_v6_paging")
            let store = try PostgresFeedStore.open(url: try PostgresURL(database.url))
            defer { try? store.close() }
            // A frequent word (over 5 rows) asked for once: counted in SQL, its rows never read.
            store.searchDocuments.keptTermMinimum.store(5, ordering: .relaxed)
            try store.commitPull(Self.alternatingPull(upTo: 20))
            let selection = StreamSelection(query: try SearchQuery(parsing: "swift"))
            var cursor: StreamCursor?
            var pages: [[String]] = []
            while true {
                let page = try store.stream(feeds: ["a"], sources: nil, selection: selection, after: cursor, limit: 3)
                #expect(page.totalItems == 10)
                pages.append(page.entries.map(\.item.id))
                guard let next = page.nextCursor, !page.entries.isEmpty else { break }
                cursor = try StreamCursor(next)
            }
            #expect(pages == [["20", "18", "16"], ["14", "12", "10"], ["8", "6", "4"], ["2"]])
            #expect(store.searchDocuments.terms.remembered("('swift')", at: try store.changeVersion()) == nil)
            // Page 1 counted (general read); pages 2 and 3 in one statement each; the last, short of
            // a page and one, ends the stream the general way.
            #expect(store.oneStatementSearchPages.load(ordering: .relaxed) == 2)
        }

        @Test("kept sets leave staged rows out: a pull in progress moves no change number, and is never counted")
        func stagedRowsLeftOut() async throws {
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase("search_v6_staged")
            let store = try PostgresFeedStore.open(url: try PostgresURL(database.url))
            defer { try? store.close() }
            store.searchDocuments.keptTermMinimum.store(0, ordering: .relaxed)
            let day = Date(timeIntervalSince1970: 1_700_000_000)
            try store.commitPull(
                FeedPull(feed: "a", source: "test.items", items: [
                    FeedItem(id: "1", title: "swift notes", url: "https://h.test/1", updated: day),
                    FeedItem(id: "2", title: "go", url: "https://h.test/2", updated: day),
                ], complete: true, stats: PullStats(pages: 1, requests: 1), error: nil))
            func total(_ query: String) throws -> Int {
                try store.stream(
                    feeds: ["a"], sources: nil, selection: StreamSelection(query: try SearchQuery(parsing: query)),
                    after: nil, limit: 10
                ).totalItems
            }
            #expect(try total("go") == 1)
            let writer = try PostgresFeedStore.open(url: try PostgresURL(database.url))
            defer { try? writer.close() }
            guard case .fresh(let ticket) = try writer.beginPull(feed: "a", source: "test.items", fingerprint: "f", restart: true)
            else {
                Issue.record("no claim")
                return
            }
            _ = try writer.stagePage(
                AcceptedPage(number: 1, items: [FeedItem(id: "3", title: "swift staged", url: "https://h.test/3", updated: day)]),
                ticket: ticket)
            #expect(try total("swift") == 1)
            #expect(try total("swift OR go") == 2)
        }
    }

    /// PostgreSQL's schema v7: the text index holds visible rows only (`WHERE NOT staged`), so a
    /// pull written page by page indexes each new item once, when its end reveals it.
    @Suite("PostgreSQL v7: the text index leaves staged rows out")
    struct VisibleTextIndex {
        @Test("a v6 database gets the partial index; searches use it and find revealed rows, never staged ones")
        func partialIndex() async throws {
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase("search_v7")
            let url = try PostgresURL(database.url)
            let day = Date(timeIntervalSince1970: 1_700_000_000)
            let definition = "SELECT pg_get_indexdef('item_search'::regclass)"
            do {
                let store = try PostgresFeedStore.open(url: url)
                defer { try? store.close() }
                try store.commitPull(
                    FeedPull(feed: "a", source: "test.items", items: [
                        FeedItem(id: "1", title: "swift notes", url: "https://h.test/1", updated: day)
                    ], complete: true, stats: PullStats(pages: 1, requests: 1), error: nil))
            }
            // Back to a database as v6 left it: the index over every row.
            _ = try await cluster.psql(
                """
                DROP INDEX item_search; CREATE INDEX item_search ON item USING gin (search);
                DELETE FROM feedagg_migrations WHERE version = 'v7';
                """, database: database.name)
            #expect(try await cluster.psql(definition, database: database.name).hasSuffix("USING gin (search)"))
            let store = try PostgresFeedStore.open(url: url)
            defer { try? store.close() }
            #expect(try store.schemaVersions() == ["v1", "v2", "v3", "v4", "v5", "v6", "v7"])
            #expect(try await cluster.psql(definition, database: database.name).hasSuffix("WHERE (NOT staged)"))
            func total(_ query: String) throws -> Int {
                try store.stream(
                    feeds: ["a"], sources: nil, selection: StreamSelection(query: try SearchQuery(parsing: query)),
                    after: nil, limit: 10
                ).totalItems
            }
            guard case .fresh(let ticket) = try store.beginPull(feed: "a", source: "test.items", fingerprint: "f", restart: true)
            else {
                Issue.record("no claim")
                return
            }
            let staged = [
                FeedItem(id: "1", title: "swift notes", url: "https://h.test/1", updated: day),
                FeedItem(id: "2", title: "swift staged", url: "https://h.test/2", updated: day),
            ]
            _ = try store.stagePage(AcceptedPage(number: 1, items: staged), ticket: ticket)
            #expect(try total("swift") == 1)
            #expect(try total("staged") == 0)
            try store.finishPull(
                FeedPull(feed: "a", source: "test.items", items: [], complete: true,
                         stats: PullStats(pages: 1, requests: 1), error: nil),
                ticket: ticket, keepResume: false)
            #expect(try total("swift") == 2)
            #expect(try total("staged") == 1)
        }
    }
#endif
