#if PostgreSQL
    import FeedCore
    import FeedSearch
    import FeedStorage
    import FeedaggTesting
    import Foundation
    import Testing

    @testable import PostgresFeedStore

    @Suite("PostgreSQL: a page's prepared statement is planned once")
    struct PostgresPreparedPlanTests {
        @Test(
            "pages after cursors near the top of the stream (a reader scrolling from page 1), and of a broad search, run their prepared statements' generic plans, not a new plan each"
        )
        func genericPlanKept() async throws {
            let opened = try await StoreEngine.postgres.open()
            defer { opened.cleanup() }
            let store = try #require(opened.store as? PostgresFeedStore)
            defer { try? store.close() }
            // Enough rows that a plan which sees the key's bound (most of the table below it, near
            // the top) costs less than one which does not: PostgreSQL then kept planning each
            // execution anew when the bound was bound plainly.
            let feeds = (0..<8).map { "f\($0)" }
            for (index, feed) in feeds.enumerated() {
                try store.commitPull(pull(feed, (0..<2_500).map { item("\(feed)-\($0)", day: $0 * 8 + index) }))
            }
            _ = try store.read("analyze") { db in try await db.query("ANALYZE item", logger: PostgresFeedStore.logger) }
            // One call at a time: every page runs on the connection that opened the store.
            var cursor: StreamCursor?
            for _ in 0..<12 {
                let page = try store.stream(feeds: feeds, sources: nil, after: cursor, limit: 50)
                cursor = try page.nextCursor.map(StreamCursor.init)
                try #require(cursor != nil, "the stream ended early")
            }
            #expect(store.oneStatementPages.load(ordering: .relaxed) >= 11, "the pages were not read in one statement")
            // And a broad search's pages (every item's title has the word): the first counts, the
            // ones after it are one statement each.
            let search = StreamSelection(query: try SearchQuery(parsing: "title"))
            cursor = nil
            for _ in 0..<12 {
                let page = try store.stream(feeds: feeds, sources: nil, selection: search, after: cursor, limit: 50)
                #expect(page.totalItems == 20_000)
                cursor = try page.nextCursor.map(StreamCursor.init)
                try #require(cursor != nil, "the search ended early")
            }
            #expect(store.oneStatementSearchPages.load(ordering: .relaxed) >= 8, "the search's pages were not read in one statement")
            let plans = try store.read("prepared statements") { db in
                var plans: [String: (generic: Int64, custom: Int64)] = [:]
                let rows = try await db.query(
                    "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'feedagg_%'",
                    logger: PostgresFeedStore.logger)
                for try await (name, generic, custom) in rows.decode((String, Int64, Int64).self) {
                    plans[name] = (generic, custom)
                }
                return plans
            }
            // PostgreSQL plans the first five executions for their binds, then compares.
            for name in ["feedagg_stream_page_64", "feedagg_search_page_64"] {
                let plan = try #require(plans[name], "\(name) not prepared: \(plans.keys.sorted())")
                #expect(plan.custom <= 5 && plan.generic >= 3, "\(name): custom plans \(plan.custom), generic plans \(plan.generic)")
            }
        }
    }
#endif
