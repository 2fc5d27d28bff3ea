#if PostgreSQL
    import FeedCore
    import FeedStorage
    import FeedaggTesting
    import Foundation
    import Testing

    @testable import PostgresFeedStore

    @Suite("PostgreSQL: the connection that opened the store serves its calls when free")
    struct PostgresConnectionsTests {
        /// The server processes connected to the store's database, as `store` sees them.
        private static func backends(_ store: PostgresFeedStore) throws -> Int64 {
            try store.read("count the connections") { db in
                try await db.row("SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database()")?
                    .get("n", Int64.self) ?? 0
            }
        }

        @Test("one call at a time (a one-shot command) uses one connection; calls at once use the pool beside it")
        func oneShotUsesOneConnection() async throws {
            let opened = try await StoreEngine.postgres.open()
            defer { opened.cleanup() }
            let store = try #require(opened.store as? PostgresFeedStore)
            defer { try? store.close() }
            try store.commitPull(pull("a", (1...30).map { (n: Int) in item("a\(n)", day: n) }))
            let first = try store.stream(feeds: ["a"], limit: 10)
            _ = try store.stream(feeds: ["a"], after: try first.nextCursor.map(StreamCursor.init), limit: 10)
            _ = try store.changeVersion()
            _ = try await store.awaitChangeVersion()
            #expect(try Self.backends(store) == 1, "the pool opened a connection of its own")
            // Eight reads at once: the kept connection serves one, the pool the others, all alike.
            let pages = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<8 {
                    group.addTask { try store.stream(feeds: ["a"], limit: 30).entries.map(\.item.id) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(pages.count == 8 && Set(pages).count == 1 && pages[0].count == 30)
        }

        @Test("closing the store closes the kept connection")
        func closeClosesIt() async throws {
            let opened = try await StoreEngine.postgres.open()
            defer { opened.cleanup() }
            let store = try #require(opened.store as? PostgresFeedStore)
            _ = try store.changeVersion()
            try store.close()
            let other = try #require(try opened.reopen() as? PostgresFeedStore)
            defer { try? other.close() }
            var count = try Self.backends(other)
            for _ in 0..<200 where count != 1 {
                try await Task.sleep(for: .milliseconds(25))
                count = try Self.backends(other)
            }
            #expect(count == 1, "the closed store's connection is still open")
        }
    }
#endif
