import FeedCore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// Pagination that contradicts itself, through a whole pull (the aggregator and the store): the
// feed stops with a precise message, what was fetched before is kept, and the other feeds
// complete. Engine-level cases: FeedCoreTests/PaginationSafetyTests.swift.

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

@Suite("Pagination safety through a pull: page-count contradictions stop the feed, the others complete, items kept")
struct PaginationSafetyPullTests {
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
}
