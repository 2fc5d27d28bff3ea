import CurlHTTP
import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// What the engine counts as requests (issue 14, item 15): requests cancelled because a fanned-out
// walk ended are not counted. (The request log's redirect hops: FeedaggTests/RequestLogCLITests.swift.)

/// A Link-paginated list of 6 pages whose page 2 fails (404) only once pages 3, 4 and 5 have
/// reached the server, and whose pages 3–6 are held until ``release()``: when page 2 fails, three
/// fanned-out requests are in flight and must be cancelled.
private final class StalledFanOut: Sendable {
    private let seen = Mutex<[Int: Int]>([:])
    private let released = Mutex(false)

    var requests: [Int: Int] { seen.withLock { $0 } }
    func release() { released.withLock { $0 = true } }

    func handle(_ request: LoopbackRequest, base: String) async -> LoopbackResponse {
        let page = request.queryValues["page"].flatMap(Int.init) ?? 1
        seen.withLock { $0[page, default: 0] += 1 }
        switch page {
        case 2:
            while !seen.withLock({ seen in (3...5).allSatisfy { seen[$0] != nil } }) {
                try? await Task.sleep(for: .milliseconds(5))
            }
            return LoopbackResponse(status: 404, headers: [("Content-Type", "application/json")], text: #"{"message":"Not Found"}"#)
        case 3...:
            while !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
            return ReposPages.page(request, ids: 1...18, page: page, base: base)
        default:
            return ReposPages.page(request, ids: 1...18, page: page, base: base)
        }
    }
}

@Suite("Request counts: cancelled fan-out requests do not count")
struct RequestCountTests {
    /// Pulls the stalled list through a real engine (4 pages in flight, no retries); returns the
    /// result and what the server saw per page.
    private func pullStalledList(events: PullEvents = PullEvents()) async throws -> (FeedResult, [Int: Int]) {
        let list = StalledFanOut()
        let base = Mutex("")
        let server = try await LoopbackHTTPServer.start { request in await list.handle(request, base: base.withLock { $0 }) }
        base.withLock { $0 = server.baseURL }
        let client = CurlClient()
        let url = try #require(URL(string: "\(server.baseURL)/orgs/acme/repos?per_page=3"))
        let feed = Feed(
            source: RecordedListSource(firstPageURL: url), context: FeedContext(name: "acme", baseURL: url, pageSize: 3))
        let result = await FeedEngine(transport: client, pageConcurrency: 4, events: events, retry: .none).pull(feed)
        list.release()
        client.shutdown()
        try await server.shutdown()
        return (result, list.requests)
    }

    @Test("page 2 of 6 fails while pages 3–5 are in flight: they are cancelled and not counted (2 requests)")
    func cancelledFanOutIsNotCounted() async throws {
        let (result, requests) = try await pullStalledList()
        #expect(result.error?.cause == "HTTP 404 Not Found: Not Found")
        #expect(result.pages == 1)
        #expect(requests[3] == 1 && requests[4] == 1 && requests[5] == 1, "pages 3–5 were in flight: \(requests)")
        #expect(result.requests == 2, "page 1 and the failed page 2; the cancelled ones do not count")
    }

    @Test("the request log marks the cancelled ones, so the progress line counts what the summary counts")
    func cancelledRequestsAreMarkedInTheLog() async throws {
        let records = Mutex<[RequestRecord]>([])
        let (result, _) = try await pullStalledList(
            events: PullEvents(requestFinished: { record in records.withLock { $0.append(record) } }))
        let logged = records.withLock { $0 }
        #expect(logged.filter { !$0.cancelled }.count == result.requests, "\(logged.map { ($0.url, $0.cancelled) })")
        #expect(logged.filter(\.cancelled).count == 3, "pages 3–5 were cancelled: \(logged.map { ($0.url, $0.cancelled) })")
        #expect(logged.filter(\.cancelled).allSatisfy { $0.failure?.contains("cancel") == true })
    }
}
