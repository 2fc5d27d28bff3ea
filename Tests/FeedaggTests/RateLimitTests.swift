import CurlHTTP
import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// Rate limits through the real libcurl client against scripted loopback servers. The clock is
// injected: a wait advances it instead of sleeping, so no test waits for a limit to reset.

/// A wall clock that only moves when the engine waits.
private final class FakeClock: Sendable {
    private let state = Mutex<(now: Date, waits: [Duration])>((Date(timeIntervalSince1970: 1_700_000_000), []))
    var now: Date { state.withLock { $0.now } }
    var waits: [Duration] { state.withLock { $0.waits } }
    func wait(_ duration: Duration) {
        state.withLock { state in
            state.waits.append(duration)
            state.now = state.now.addingTimeInterval(
                Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        }
    }
}

private let t0 = 1_700_000_000

/// Pulls each list (one feed per list, each on its own server) through one engine.
private func pull(_ lists: [FlakyList], clock: FakeClock, maxWait: Duration = .seconds(60)) async throws -> [FeedResult] {
    var servers: [LoopbackHTTPServer] = []
    var feeds: [Feed] = []
    for (index, list) in lists.enumerated() {
        let base = Mutex("")
        let server = try await LoopbackHTTPServer.start { request in list.handle(request, base: base.withLock { $0 }) }
        base.withLock { $0 = server.baseURL }
        servers.append(server)
        let url = try #require(URL(string: "\(server.baseURL)/list"))
        feeds.append(
            Feed(
                source: RecordedListSource(firstPageURL: url),
                context: FeedContext(name: "feed\(index + 1)", baseURL: url, pageSize: 3)))
    }
    let client = CurlClient()
    defer { client.shutdown() }
    let engine = FeedEngine(
        transport: client, pageConcurrency: 1,
        retry: RetryPolicy(sleep: { clock.wait($0) }, jitter: { 1.0 }),
        rateLimit: RateLimitPolicy(maxWait: maxWait, now: { clock.now }, sleep: { clock.wait($0) }))
    let results = await engine.pull(feeds)
    for server in servers { try await server.shutdown() }
    return results
}

/// A GitHub primary rate limit: 403, remaining 0, reset at `reset` (epoch seconds).
func primaryLimit(reset: Int) -> LoopbackResponse {
    LoopbackResponse(
        status: 403,
        headers: [
            ("Content-Type", "application/json"), ("X-RateLimit-Limit", "5000"), ("X-RateLimit-Remaining", "0"),
            ("X-RateLimit-Reset", String(reset)),
        ],
        text: #"{"message":"API rate limit exceeded for 127.0.0.1.","documentation_url":"https://docs.github.com/rest"}"#)
}

@Suite("Rate limits: wait for the reset within the budget, else stop the feed; other 403s are not rate limits")
struct RateLimitTests {
    @Test("403 with X-RateLimit-Remaining: 0 → every request waits until X-RateLimit-Reset, then the pull completes")
    func primaryLimitWithinBudget() async throws {
        let clock = FakeClock()
        let list = FlakyList(pages: 3) { page, attempt in page == 2 && attempt == 1 ? primaryLimit(reset: t0 + 30) : nil }
        let result = try #require(try await pull([list], clock: clock).first)
        #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
        #expect(result.items.count == 9)
        #expect(list.attempts == [1: 1, 2: 2, 3: 1])
        #expect(result.requests == 4)
        #expect(clock.waits == [.seconds(30)])
    }

    @Test("429 with Retry-After: 5 waits 5 s; a secondary-limit 403 without headers waits the default pause")
    func retryAfterAndSecondary() async throws {
        let clock = FakeClock()
        let tooMany = FlakyList(pages: 1) { _, attempt in
            attempt == 1 ? LoopbackResponse(status: 429, headers: [("Retry-After", "5")], text: "slow down") : nil
        }
        let secondary = FlakyList(pages: 1) { _, attempt in
            attempt == 1
                ? LoopbackResponse(
                    status: 403,
                    text: #"{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}"#)
                : nil
        }
        // One clock per pull: with both feeds on one clock, the 429's 5 s wait could move the clock
        // before the other feed's pause is measured (55 s left of the same 60 s pause).
        let secondaryClock = FakeClock()
        let results = try await pull([tooMany], clock: clock, maxWait: .seconds(120))
            + pull([secondary], clock: secondaryClock, maxWait: .seconds(120))
        #expect(results.allSatisfy { $0.error == nil })
        #expect(tooMany.totalRequests == 2 && secondary.totalRequests == 2)
        #expect(clock.waits == [.seconds(5)])
        #expect(secondaryClock.waits == [.seconds(60)])
    }

    @Test("a reset beyond rate_limit_wait stops that feed with when to pull again; a feed on another host completes")
    func beyondBudgetStopsTheFeed() async throws {
        let clock = FakeClock()
        let limited = FlakyList(pages: 3) { page, _ in page == 2 ? primaryLimit(reset: t0 + 7_200) : nil }
        let healthy = FlakyList(pages: 2) { _, _ in nil }
        let results = try await pull([limited, healthy], clock: clock)
        let error = try #require(results[0].error)
        #expect(results[0].items.count == 3, "page 1's items are kept")
        guard case .rateLimited(_, let until, _) = error.reason else {
            Issue.record("expected a rate-limit error, got \(error)")
            return
        }
        #expect(until == Date(timeIntervalSince1970: Double(t0 + 7_200)))
        let port = try #require(URL(string: error.url)?.port)
        #expect(
            error.description.hasSuffix(
                "(page 2): rate limited by 127.0.0.1:\(port) until 2023-11-15T00:13:20Z, longer than feedagg waits "
                    + "(rate_limit_wait = 60 s): pull again after that time"),
            "\(error)")
        #expect(limited.attempts[2] == 1, "the limited page is not hammered")
        #expect(limited.attempts[3] == nil, "nothing more is sent to the limited host")
        #expect(clock.waits.isEmpty)
        #expect(results[1].error == nil && results[1].items.count == 6)
    }

    @Test("the real 403 of a missing User-Agent (pygithub recording) is reported at once, not as a rate limit",
        .enabled(if: RepositoryPaths.hasRealworld, RealworldRecording.missing))
    func realForbiddenIsNotARateLimit() async throws {
        let file = RepositoryPaths.realworld.appendingPathComponent("pygithub-replay/SpecificExceptions.testBadUserAgent.json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let exchanges = try #require(object["exchanges"] as? [[String: Any]])
        let response = try #require(exchanges.compactMap { $0["response"] as? [String: Any] }.first { $0["status"] as? Int == 403 })
        let headers = (response["headers"] as? [[String]] ?? []).filter { $0.count == 2 && $0[0].lowercased() != "content-length" }
            .map { (name: $0[0], value: $0[1]) }
        let body = try JSONSerialization.data(withJSONObject: try #require(response["body"]))
        let clock = FakeClock()
        let list = FlakyList(pages: 1) { _, _ in LoopbackResponse(status: 403, headers: headers, body: Array(body)) }
        let result = try #require(try await pull([list], clock: clock).first)
        let error = try #require(result.error)
        #expect(list.totalRequests == 1)
        #expect(clock.waits.isEmpty)
        #expect(error.cause == "HTTP 403 Forbidden: Missing or invalid User Agent string. See http://developer.github.com/v3/#user-agent-required (not a rate limit)")
    }

    @Test("few requests left: the next ones are spread until the reset instead of spent at once")
    func slowsDownBeforeTheLimit() async throws {
        let clock = FakeClock()
        let paced = FlakyList(pages: 3) { page, _ in
            let items = (1...3).map { #"{"id":\#(page * 100 + $0)}"# }.joined(separator: ",")
            var headers: [(name: String, value: String)] = [
                ("Content-Type", "application/json"), ("X-RateLimit-Remaining", "3"),
                ("X-RateLimit-Reset", String(t0 + 40)),
            ]
            if page < 3 { headers.append(("Link", "</list?page=\(page + 1)>; rel=\"next\"")) }
            return LoopbackResponse(status: 200, headers: headers, text: "[\(items)]")
        }
        let result = try #require(try await pull([paced], clock: clock).first)
        #expect(result.error == nil)
        #expect(result.items.count == 9)
        // 3 left, reset in 40 s: the next request waits 40 / 4 = 10 s; then 30 s left → 7.5 s.
        #expect(clock.waits == [.seconds(10), .milliseconds(7_500)])
    }
}
