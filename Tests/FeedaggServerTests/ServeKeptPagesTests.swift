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
}
