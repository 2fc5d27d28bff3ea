import CurlHTTP
import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// Retries through the real libcurl client against a scripted loopback server. The policy's clock
// is injected: waits are recorded, never slept.

/// Waits the policy asked for, recorded instead of slept.
private final class RecordedWaits: Sendable {
    private let waits = Mutex<[Duration]>([])
    var all: [Duration] { waits.withLock { $0 } }
    func record(_ wait: Duration) { waits.withLock { $0.append(wait) } }
}

/// Pulls the flaky list through CurlClient and the engine with `policy` (its sleep recorded).
private func pull(
    _ list: FlakyList, attempts: Int = 3, maxTotalDelay: Duration = .seconds(30)
) async throws -> (FeedResult, [Duration]) {
    let base = Mutex("")
    let server = try await LoopbackHTTPServer.start { request in list.handle(request, base: base.withLock { $0 }) }
    base.withLock { $0 = server.baseURL }
    let client = CurlClient()
    defer { client.shutdown() }
    let waits = RecordedWaits()
    let policy = RetryPolicy(
        maxAttempts: attempts, maxTotalDelay: maxTotalDelay, sleep: { waits.record($0) }, jitter: { 1.0 })
    let url = try #require(URL(string: "\(server.baseURL)/list"))
    let feed = Feed(
        source: RecordedListSource(firstPageURL: url),
        context: FeedContext(name: "flaky", baseURL: url, pageSize: 3))
    let result = await FeedEngine(transport: client, pageConcurrency: 4, retry: policy).pull(feed)
    try await server.shutdown()
    return (result, waits.all)
}

private let unavailable = LoopbackResponse(status: 503, text: #"{"message":"Service Unavailable"}"#)

@Suite("Retries: backoff, Retry-After, budgets, never on 4xx, never duplicating items")
struct RetryTests {
    @Test("503, 503, then 200: three tries with 0.5 s then 1 s backoff; items once")
    func retriesThenSucceeds() async throws {
        let list = FlakyList(pages: 1) { _, attempt in attempt <= 2 ? unavailable : nil }
        let (result, waits) = try await pull(list)
        #expect(result.error == nil)
        #expect(result.items.map(\.id) == ["test.list:101", "test.list:102", "test.list:103"])
        #expect(list.totalRequests == 3)
        #expect(result.requests == 3)
        #expect(waits == [.milliseconds(500), .seconds(1)])
    }

    @Test("a page failing mid fan-out is retried; items and order equal a clean walk's, no duplicates")
    func retryDuringFanOut() async throws {
        let flaky = FlakyList(pages: 5) { page, attempt in
            page == 3 && attempt == 1 ? LoopbackResponse(status: 502, text: "Bad Gateway") : nil
        }
        let clean = FlakyList(pages: 5) { _, _ in nil }
        let (result, _) = try await pull(flaky)
        let (expected, _) = try await pull(clean)
        #expect(result.error == nil)
        #expect(result.items.map(\.id) == expected.items.map(\.id))
        #expect(result.items.count == 15)
        #expect(flaky.attempts[3] == 2 && flaky.totalRequests == 6)
    }

    @Test("a connection reset after the response head is retried like a 5xx")
    func connectionResetIsRetried() async throws {
        let list = FlakyList(pages: 2) { page, attempt in
            page == 2 && attempt == 1 ? LoopbackResponse(status: 200, text: "[]", fault: .resetAfterHead) : nil
        }
        let (result, waits) = try await pull(list)
        #expect(result.error == nil)
        #expect(result.items.count == 6)
        #expect(list.attempts[2] == 2)
        #expect(waits == [.milliseconds(500)])
    }

    @Test("404, 401, 410, 422 and 400 are never retried", arguments: [404, 401, 410, 422, 400])
    func clientErrorsAreFinal(status: Int) async throws {
        let list = FlakyList(pages: 1) { _, _ in LoopbackResponse(status: status, text: #"{"message":"no"}"#) }
        let (result, waits) = try await pull(list)
        let error = try #require(result.error)
        #expect(list.totalRequests == 1)
        #expect(waits.isEmpty)
        #expect(error.attempts == 1)
        #expect(!error.description.contains("tries"))
    }

    @Test("a 500 that never recovers fails after the tries, saying how many")
    func givesUpAfterTries() async throws {
        let list = FlakyList(pages: 1) { _, _ in LoopbackResponse(status: 500, text: #"{"message":"boom"}"#) }
        let (result, waits) = try await pull(list)
        let error = try #require(result.error)
        #expect(list.totalRequests == 3)
        #expect(waits == [.milliseconds(500), .seconds(1)])
        #expect(error.description.hasSuffix("(page 1): HTTP 500 Internal Server Error: boom (after 3 tries)"), "\(error)")
    }

    @Test("Retry-After (seconds and HTTP date) replaces a shorter backoff")
    func retryAfter() async throws {
        let list = FlakyList(pages: 1) { _, attempt in
            attempt == 1
                ? LoopbackResponse(status: 503, headers: [("Retry-After", "4")], text: "busy") : nil
        }
        let (result, waits) = try await pull(list)
        #expect(result.error == nil)
        #expect(waits == [.seconds(4)])

        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var headers = HTTPHeaders()
        headers.set("Retry-After", "Tue, 14 Nov 2023 22:13:30 GMT")  // now + 10 s
        #expect(RetryPolicy.retryAfter(headers, now: now) == .seconds(10))
        headers.set("Retry-After", "soon")
        #expect(RetryPolicy.retryAfter(headers, now: now) == nil)
    }

    @Test("the per-feed wait budget ends the retries before the tries run out")
    func budgetBoundsTheWaits() async throws {
        let list = FlakyList(pages: 1) { _, _ in unavailable }
        let (result, waits) = try await pull(list, attempts: 6, maxTotalDelay: .milliseconds(1_200))
        #expect(result.error?.attempts == 2)
        #expect(waits == [.milliseconds(500)], "the next wait (1 s) does not fit in the 0.7 s left")
        #expect(list.totalRequests == 2)
    }

    @Test("backoff doubles up to the cap and jitter only shortens it")
    func backoffShape() {
        let policy = RetryPolicy(baseDelay: .milliseconds(500), maxDelay: .seconds(8), jitter: { 0.5 })
        #expect((1...7).map { policy.delay(afterAttempt: $0) } == [
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4), .seconds(4),
        ])
    }
}
