import CurlHTTP
import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// Pagination that contradicts itself stops the feed with a precise message; what was fetched
// before is kept. Real libcurl, a scripted loopback server, the engine alone. Through a whole pull
// (the other feeds complete): FeedaggTests/PaginationSafetyPullTests.swift.

/// Pulls one Link-paginated flaky list through the engine (no retries).
private func pullList(_ list: FlakyList, pageConcurrency: Int = 4) async throws -> FeedResult {
    let base = Mutex("")
    let server = try await LoopbackHTTPServer.start { request in list.handle(request, base: base.withLock { $0 }) }
    base.withLock { $0 = server.baseURL }
    let client = CurlClient()
    defer { client.shutdown() }
    let url = try #require(URL(string: "\(server.baseURL)/list"))
    let feed = Feed(
        source: RecordedListSource(firstPageURL: url), context: FeedContext(name: "list", baseURL: url, pageSize: 3))
    let result = await FeedEngine(transport: client, pageConcurrency: pageConcurrency, retry: .none).pull(feed)
    try await server.shutdown()
    return result
}

@Suite("Pagination safety: contradictions stop the feed with a precise message, items kept")
struct PaginationSafetyTests {
    @Test("Link: an empty page before the announced last page")
    func emptyMiddlePage() async throws {
        let list = FlakyList(pages: 4) { page, _ in
            page == 2
                ? LoopbackResponse(
                    status: 200, headers: [("Content-Type", "application/json")], text: "[]") : nil
        }
        let result = try await pullList(list)
        let error = try #require(result.error)
        #expect(error.cause == "inconsistent pagination: page 2 is empty, but page 1 announced 4 pages")
        #expect(error.page == 2)
        #expect(result.items.map(\.id) == ["test.list:101", "test.list:102", "test.list:103"], "page 1 is kept")
    }

    @Test("Link: a page before the announced last page has no next link (the listing shrank)")
    func missingNextLink() async throws {
        let list = FlakyList(pages: 5) { page, _ in
            guard page == 3 else { return nil }
            return LoopbackResponse(
                status: 200, headers: [("Content-Type", "application/json")], text: #"[{"id":301}]"#)
        }
        let result = try await pullList(list)
        let error = try #require(result.error)
        #expect(
            error.cause
                == #"inconsistent pagination: page 3 has no rel="next" link, but page 1's rel="last" announced 5 pages (the listing changed during the pull; pull again)"#)
        #expect(result.items.count == 6, "pages 1 and 2 are kept")
    }

    @Test("a next link back to a page already fetched is a cycle; max_pages stops with a note and keeps the items")
    func cycleAndMaxPages() async throws {
        let cycle = FlakyList(pages: 1) { page, _ in
            let items = #"[{"id":\#(page * 100 + 1)}]"#
            let next = page == 2 ? "</list>" : "</list?page=2>"
            return LoopbackResponse(
                status: 200, headers: [("Content-Type", "application/json"), ("Link", "\(next); rel=\"next\"")],
                text: items)
        }
        let result = try await pullList(cycle)
        #expect(result.error?.cause == "pagination cycle: the next link points at a page already fetched")
        #expect(result.items.count == 2)

        let long = FlakyList(pages: 6) { _, _ in nil }
        let base = Mutex("")
        let server = try await LoopbackHTTPServer.start { request in long.handle(request, base: base.withLock { $0 }) }
        base.withLock { $0 = server.baseURL }
        let client = CurlClient()
        defer { client.shutdown() }
        let url = try #require(URL(string: "\(server.baseURL)/list"))
        let limited = await FeedEngine(transport: client).pull(
            Feed(
                source: RecordedListSource(firstPageURL: url),
                context: FeedContext(name: "long", baseURL: url, pageSize: 3, maxPages: 2)))
        try await server.shutdown()
        #expect(limited.error == nil)
        #expect(limited.items.count == 6)
        #expect(limited.notes == ["stopped at max_pages = 2 of 6 pages"])
        #expect(!limited.complete)
        #expect(long.totalRequests == 2)
    }
}
