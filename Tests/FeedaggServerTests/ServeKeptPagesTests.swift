import FeedCore
import FeedStore
import FeedaggTesting
import Foundation
import Testing

// First pages kept rendered until the store changes (RenderedPages), through the real binary.

@Suite("serve: first pages kept rendered until the store changes", .enabled(if: BenchServer.isAvailable, benchServerMissing))
struct ServeKeptPagesTests {
    /// The value of counter `name` in the server's /metrics (0 when it has not been counted yet).
    static func counter(_ name: String, at serve: ServeProcess) async throws -> Int {
        let (text, _) = try await ServeClient().text(serve.url("/metrics"))
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") || line.hasPrefix(name + "{") {
            return Int(Double(line.split(separator: " ").last ?? "0") ?? 0)
        }
        return 0
    }

    @Test("a first page is answered from the kept page while nothing changes, and re-read once a commit by another process changes the store")
    func keptUntilTheStoreChanges() async throws {
        try await ServeAPITests.withPulledStore { _, db, serve in
            let client = ServeClient()
            let kept = "feedagg_http_kept_pages_total"
            for path in ["/api/items?limit=5", "/stream.atom?limit=5", "/stream.json?limit=5", "/feeds/acme.atom?limit=5"] {
                let first = try await client.send(serve.url(path))
                let before = try await Self.counter(kept, at: serve)
                let second = try await client.send(serve.url(path))
                #expect(try await Self.counter(kept, at: serve) == before + 1, "\(path): the second answer is the kept page")
                #expect(second.status == 200 && second.body == first.body && second.headers["ETag"] == first.headers["ETag"])
                #expect(second.headers["Link"] == first.headers["Link"], "\(path)")
                let revalidated = try await client.send(serve.url(path), headers: [("If-None-Match", first.headers["ETag"] ?? "")])
                #expect(revalidated.status == 304, "\(path)")
            }
            // A page after a cursor is never kept.
            let (page, _) = try await client.text(serve.url("/api/items?limit=5"))
            let cursor = try #require(try jsonObject(page)["next_cursor"] as? String)
            let before = try await Self.counter(kept, at: serve)
            for _ in 0..<2 { _ = try await client.send(serve.url("/api/items?limit=5&after=\(cursor)")) }
            #expect(try await Self.counter(kept, at: serve) == before)

            // Another process commits a newer item: the next first page shows it, under a new tag.
            let etag = try await client.send(serve.url("/api/items?limit=5")).headers["ETag"]
            let store = try FeedStore.open(path: db)
            try store.commitPull(
                feed: "acme", source: "github.repos",
                items: [FeedItem(id: "newest", title: "committed by another process", url: "https://example.test/newest",
                    updated: Date(timeIntervalSince1970: 4_000_000_000))],
                complete: false, stats: PullStats(pages: 1, requests: 1), error: nil, cacheEntries: [])
            try store.close()
            let after = try await client.send(serve.url("/api/items?limit=5"))
            #expect(after.headers["ETag"] != etag)
            let items = try jsonObject(String(decoding: after.body, as: UTF8.self))["items"] as? [[String: Any]] ?? []
            #expect(items.first?["title"] as? String == "committed by another process")
            let stale = try await client.send(serve.url("/api/items?limit=5"), headers: [("If-None-Match", etag ?? "")])
            #expect(stale.status == 200, "the old tag no longer matches")
        }
    }

    @Test("on PostgreSQL, first pages and their revalidations read no change number while the store announces its changes: another process's commit is announced, serve's own pull is read at once, a broken link falls back to reads and comes back")
    func announcedChanges() async throws {
        let api = try await BenchServer.start(
            .init(orgs: [.init("acme", repos: 45), .init("zeta", repos: 30), .init("newco", repos: 3)]))
        defer { api.stop() }
        let folder = try TemporaryFolder("feedagg-serve-announced")
        defer { folder.remove() }
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase("announced")
        let config = try folder.write(
            "feeds.yaml", reposYAML([("acme", "acme"), ("zeta", "zeta")], base: api.baseURL, settings: ["min_refresh: 0"]))
        // Another configuration's feed, pulled into the same database by another process.
        let other = try folder.write("other.yaml", reposYAML([("newco", "newco")], base: api.baseURL))
        let (reads, announced, kept) = (
            "feedagg_store_change_number_reads_total", "feedagg_store_changes_announced_total", "feedagg_http_kept_pages_total"
        )
        _ = try await ServeProcess.afterPull(config: config.path, db: database.url) { _, db, serve in
            let client = ServeClient()
            let page = serve.url("/api/items?limit=5")
            let etag = try await client.send(page).headers["ETag"] ?? ""
            /// The reads of the number made while `requests` first pages and revalidations were
            /// answered one after another (each one read it before the watch).
            func readsMade(during requests: Int) async throws -> Int {
                let before = try await Self.counter(reads, at: serve)
                for index in 0..<requests {
                    let answer = try await client.send(page, headers: index.isMultiple(of: 2) ? [("If-None-Match", etag)] : [])
                    #expect(answer.status == (index.isMultiple(of: 2) ? 304 : 200))
                }
                return try await Self.counter(reads, at: serve) - before
            }
            func readNothing(_ requests: Int = 10) async throws -> Bool { try await readsMade(during: requests) == 0 }
            // Once the link is up, the number is the announced one: no read, however many ask. (A
            // few are allowed over 40 requests: on a machine loaded enough that the link's check
            // answers more than 6 s apart, the watch rightly stops vouching until it does.)
            try await ServeScheduleTests.eventually("the watch vouches for the number", timeout: .seconds(60)) {
                try await readNothing()
            }
            let made = try await readsMade(during: 40)
            #expect(made <= 4, "\(made) reads of the number for 40 first pages and revalidations")

            // A commit by another process is announced, and the next first page is rendered anew.
            let before = try await Self.counter(announced, at: serve)
            let pull = try await TestBinary.runFeedagg(["pull", "--config", other.path, "--db", db, "--quiet"])
            try #require(pull.status == 0, "\(pull.summary)")
            try await ServeScheduleTests.eventually("the other process's commit announced", timeout: .seconds(60)) {
                try await Self.counter(announced, at: serve) > before
            }
            let keptBefore = try await Self.counter(kept, at: serve)
            _ = try await client.send(page)
            #expect(try await Self.counter(kept, at: serve) == keptBefore, "the page after the commit is rendered, not the kept one")

            // A pull of serve's own: once its status reads as finished, the next first page reads the number.
            let readsBefore = try await Self.counter(reads, at: serve)
            let asked = try await client.send(serve.url("/api/refresh?feed=acme"), method: "POST")
            #expect(asked.status == 202 || asked.status == 200, "\(asked.status)")
            try await ServeScheduleTests.eventually("the refresh done", timeout: .seconds(120)) {
                let (status, _) = try await client.text(serve.url("/api/refresh/status"))
                return try jsonObject(status)["done"] as? Bool == true
            }
            _ = try await client.send(page)
            #expect(try await Self.counter(reads, at: serve) > readsBefore, "serve's own pull is read, not waited for")

            // The link broken (its backend terminated): requests read the number until it is back.
            let terminate =
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(database.name)' AND application_name = 'feedagg change watch'"
            let terminated = try await cluster.psql(terminate, database: database.name)
            #expect(terminated == "1", "one listening backend: \(terminated)")
            // The watch listens again a second after it lost the link; on a loaded machine the
            // requests below can take longer than that, so the link is broken again each time it
            // comes back, until a request has read the number (a single break is a window this
            // test could miss: CI once did).
            let breaker = Task {
                while !Task.isCancelled {
                    _ = try? await cluster.psql(terminate, database: database.name)
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            do {
                try await ServeScheduleTests.eventually("requests read while the link is down", timeout: .seconds(60)) {
                    try await !readNothing(2)
                }
            } catch {
                breaker.cancel()
                throw error
            }
            breaker.cancel()
            await breaker.value
            try await ServeScheduleTests.eventually("the link back", timeout: .seconds(60)) { try await readNothing() }
        }
    }
}
