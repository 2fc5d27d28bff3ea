#if PostgreSQL
    import FeedStorage
    import FeedaggTesting
    import Foundation
    import PostgresFeedStore
    import Testing

    @Suite("PostgreSQL store: the database goes away")
    struct PostgresOutageTests {
        @Test("a read fails after the store's read timeout, naming the server, instead of waiting for the pool to give up")
        func readTimesOut() async throws {
            // A cluster of its own: this test stops it.
            let cluster = try await PostgresCluster.start()
            let database = try await cluster.createDatabase("outage")
            let store = try PostgresFeedStore.open(url: try PostgresURL(database.url), readTimeout: .seconds(2))
            defer { try? store.close() }
            try store.commitPull(pull("a", [item("1", day: 1)]))
            #expect(try store.feedSummaries().first?.itemCount == 1)

            await cluster.stop()
            let error = try #require(throws: StoreError.self) { try store.feedSummaries() }
            // Without the limit the pool holds the request about a minute and then reports its
            // circuit breaker; with it, the read gives up after 2 s and says so.
            #expect(error.detail.contains("did not answer within 2 s"), "\(error)")
            #expect(error.detail.contains("127.0.0.1:\(cluster.port)"), "\(error)")
            // serve's read of the change number, awaited on the driver, has the same limit (the
            // pool's own failure, a minute later, says something else).
            let awaited = await #expect(throws: StoreError.self) { try await store.awaitChangeVersion() }
            #expect(awaited?.detail.contains("did not answer within 2 s") == true, "\(String(describing: awaited))")
            // So has serve's page, awaited on the caller's pool.
            let page = await #expect(throws: StoreError.self) {
                try await store.awaitStreamPage(
                    feeds: ["a"], sources: nil, selection: .everything, after: nil, limit: 10, onCallersPool: true)
            }
            #expect(page?.detail.contains("did not answer within 2 s") == true, "\(String(describing: page))")
        }
    }
#endif
