#if PostgreSQL
    import FeedCore
    import FeedSearch
    import FeedStorage
    import FeedaggTesting
    import Foundation
    import Testing

    @testable import PostgresFeedStore

    @Suite("PostgreSQL: the statements run most often are prepared and planned once")
    struct PostgresPreparedPlanTests {
        /// The prepared statements of the connection `store` runs one call at a time on (the one
        /// that opened it): name → plans made for their binds, and runs of the generic plan.
        private static func plans(_ store: PostgresFeedStore) throws -> [String: (generic: Int64, custom: Int64)] {
            try store.read("prepared statements") { db in
                var plans: [String: (generic: Int64, custom: Int64)] = [:]
                let rows = try await db.query(
                    "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'feedagg_%'",
                    logger: PostgresFeedStore.logger)
                for try await (name, generic, custom) in rows.decode((String, Int64, Int64).self) {
                    plans[name] = (generic, custom)
                }
                return plans
            }
        }

        @Test(
            "a refresh of an unchanged feed (claimed with no checkpoint, ended with nothing staged) runs two prepared statements, planned once; NULLs and values in turn are written as given"
        )
        func refreshStatementsPrepared() async throws {
            let opened = try await StoreEngine.postgres.open()
            defer { opened.cleanup() }
            let store = try #require(opened.store as? PostgresFeedStore)
            defer { try? store.close() }
            try store.commitPull(pull("f", [item("1", day: 1)]))
            for round in 0..<10 {
                guard
                    case .fresh(let ticket) = try store.beginPull(
                        feed: "f", source: "test.items", fingerprint: "fp", restart: false,
                        config: round.isMultiple(of: 2) ? nil : "config \(round)")
                else {
                    Issue.record("round \(round): the feed was not claimed afresh")
                    return
                }
                // A 304 (nothing fetched, not complete), or a failure, in turn.
                let failed = round % 3 == 2
                try store.finishPull(
                    FeedPull(
                        feed: "f", source: "test.items", items: [], complete: false,
                        stats: PullStats(pages: 1, requests: round + 1), error: failed ? "failed \(round)" : nil),
                    ticket: ticket, keepResume: false)
                let row = try store.read("the feed's record") { db in
                    try await db.row(
                        "SELECT pulls, last_error, last_requests, config FROM feed WHERE name = 'f'")
                        .map { (try $0.get("pulls", Int64.self), try $0.get("last_error", String?.self),
                            try $0.get("last_requests", Int64?.self), try $0.get("config", String?.self)) }
                }
                let expectedConfig: String? = round == 0 ? nil : "config \(round.isMultiple(of: 2) ? round - 1 : round)"
                #expect(row?.0 == Int64(round + 2), "round \(round): pulls \(String(describing: row?.0))")
                #expect(row?.1 == (failed ? "failed \(round)" : nil), "round \(round)")
                #expect(row?.2 == Int64(round + 1), "round \(round)")
                #expect(row?.3 == expectedConfig, "round \(round): a NULL config keeps the one stored")
                #expect(try store.checkpoint(feed: "f") == nil, "round \(round): the checkpoint was not removed")
            }
            let plans = try Self.plans(store)
            for name in ["feedagg_begin_fresh_pull", "feedagg_finish_unstaged_pull"] {
                let plan = try #require(plans[name], "\(name) not prepared: \(plans.keys.sorted())")
                #expect(plan.custom <= 5 && plan.generic >= 5, "\(name): custom plans \(plan.custom), generic plans \(plan.generic)")
            }
        }

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
            let plans = try Self.plans(store)
            // PostgreSQL plans the first five executions for their binds, then compares.
            for name in ["feedagg_stream_page_56", "feedagg_search_page_56"] {
                let plan = try #require(plans[name], "\(name) not prepared: \(plans.keys.sorted())")
                #expect(plan.custom <= 5 && plan.generic >= 3, "\(name): custom plans \(plan.custom), generic plans \(plan.generic)")
            }
        }
    }
#endif
