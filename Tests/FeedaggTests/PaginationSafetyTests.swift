import CurlHTTP
import FeedCore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// Pagination that contradicts itself stops the feed with a precise message; what was fetched
// before is kept, and the other feeds complete. Real libcurl, scripted loopback servers.

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

/// A 500px-style envelope page: `photos` ids `page*100+1…+count`, with the given totals.
private func photosPage(
    page: Int, count: Int = 3, currentPage: Int? = nil, totalPages: Int, firstID: Int = 1
) -> LoopbackResponse {
    let photos = (0..<count).map { #"{"id":\#(page * 100 + $0 + firstID),"name":"p\#(page)-\#($0)"}"# }
        .joined(separator: ",")
    return LoopbackResponse(
        status: 200, headers: [("Content-Type", "application/json")],
        text: #"{"current_page":\#(currentPage ?? page),"total_pages":\#(totalPages),"total_items":\#(totalPages * 3),"photos":[\#(photos)]}"#)
}

/// Pulls a photos.500px feed whose pages `respond` scripts, plus a healthy second feed, through
/// the aggregator into a temporary store.
private func pullPhotos(_ respond: @escaping @Sendable (Int) -> LoopbackResponse) async throws -> PullReport {
    let server = try await LoopbackHTTPServer.start { request in
        let page = VersionedAPI.query(request)["page"].flatMap(Int.init) ?? 1
        if request.path == "/healthy/v1/photos" { return photosPage(page: page, totalPages: 2, firstID: 50) }
        return respond(page)
    }
    let report = try await pullQuietly(
        """
        settings:
          retries: 0
        feeds:
          - name: shaky
            source: photos.500px
            base_url: \(server.baseURL)
            per_page: 3
          - name: healthy
            source: photos.500px
            base_url: \(server.baseURL)/healthy
            per_page: 3

        """)
    try await server.shutdown()
    return report
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

    @Test("page numbers: a later page reports another page count; the other feed completes and nothing is lost")
    func pageCountChanges() async throws {
        let report = try await pullPhotos { page in photosPage(page: page, totalPages: page >= 3 ? 5 : 4) }
        let shaky = try #require(report.results.first { $0.feed == "shaky" })
        let error = try #require(shaky.error)
        #expect(
            error.cause
                == "inconsistent pagination: page 3 reports 5 pages but page 1 reported 4 (the listing changed during the pull; pull again)")
        #expect(shaky.items.count == 6)
        #expect(report.exitStatus == .partialFailure)
        #expect(report.results.first { $0.feed == "healthy" }?.items.count == 6)
        #expect(report.page.totalItems == 12, "shaky's pages 1–2 and healthy's items are stored")
    }

    @Test("page numbers: a page answering with another current_page")
    func currentPageMismatch() async throws {
        let report = try await pullPhotos { page in
            photosPage(page: page, currentPage: page == 2 ? 1 : page, totalPages: 3)
        }
        let error = try #require(report.results.first { $0.feed == "shaky" }?.error)
        #expect(error.cause == "inconsistent pagination: page 2 was asked for as page=2 but reports current_page = 1")
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
