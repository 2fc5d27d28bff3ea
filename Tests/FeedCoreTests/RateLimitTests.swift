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
private func pull(
    _ lists: [FlakyList], clock: FakeClock, maxWait: Duration = .seconds(60),
    sharedPause: (@Sendable (String, String) -> RateLimitPolicy.SharedRateLimitPause?)? = nil,
    limitMet: (@Sendable (String, String, Date) -> Void)? = nil
) async throws -> [FeedResult] {
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
    // Timeouts far above any stall of a loaded machine: a timed-out request would be retried,
    // and the waits and request counts are what these tests check.
    let client = CurlClient(
        configuration: CurlClient.Configuration(
            totalTimeout: .seconds(300), firstByteTimeout: .seconds(300), lowSpeedTime: .seconds(300)))
    defer { client.shutdown() }
    let engine = FeedEngine(
        transport: client, pageConcurrency: 1,
        retry: RetryPolicy(sleep: { clock.wait($0) }, jitter: { 1.0 }),
        rateLimit: {
            var policy = RateLimitPolicy(maxWait: maxWait, now: { clock.now }, sleep: { clock.wait($0) })
            policy.sharedPause = sharedPause
            policy.limitMet = limitMet
            return policy
        }())
    let results = await engine.pull(feeds)
    for server in servers { try await server.shutdown() }
    return results
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

    @Test("a pause met elsewhere (another worker) holds a feed's requests: beyond rate_limit_wait it stops before any request, within it the feed waits, then completes")
    func sharedPauseHoldsRequests() async throws {
        let clock = FakeClock()
        let start = clock.now
        let asked = Mutex<[String]>([])
        // feed1's host is paused two hours by a feed of another worker; feed2's is not.
        let beyond = FlakyList(pages: 2) { _, _ in nil }
        let free = FlakyList(pages: 2) { _, _ in nil }
        let results = try await pull([beyond, free], clock: clock) { host, feed in
            asked.withLock { $0.append(feed + "@" + host) }
            return feed == "feed1" ? .init(until: start.addingTimeInterval(7_200), setBy: "other") : nil
        }
        let error = try #require(results[0].error)
        guard case .rateLimited(let stop) = error.reason else {
            Issue.record("expected a rate-limit error, got \(error)")
            return
        }
        #expect(stop.pausedBy == "other" && stop.until == start.addingTimeInterval(7_200))
        #expect(beyond.attempts.isEmpty, "nothing is sent to the paused host")
        #expect(results[1].error == nil && results[1].items.count == 6)
        #expect(asked.withLock { $0 }.contains { $0.hasPrefix("feed1@127.0.0.1:") })

        // A pause of 5 s, within rate_limit_wait: the feed waits for it, then completes.
        let clock2 = FakeClock()
        let until = clock2.now.addingTimeInterval(5)
        let within = FlakyList(pages: 2) { _, _ in nil }
        let waited = try await pull([within], clock: clock2) { _, _ in .init(until: until, setBy: "other") }
        #expect(waited[0].error == nil && waited[0].items.count == 6)
        #expect(clock2.waits == [.seconds(5)], "\(clock2.waits)")
    }

    @Test("a reset beyond rate_limit_wait stops that feed with when to pull again; a feed on another host completes")
    func beyondBudgetStopsTheFeed() async throws {
        let clock = FakeClock()
        let limited = FlakyList(pages: 3) { page, _ in page == 2 ? primaryLimit(reset: t0 + 7_200) : nil }
        let healthy = FlakyList(pages: 2) { _, _ in nil }
        // Whoever shares limits (serve's workers) hears of this one as it arrives, once.
        let met = Mutex<[(String, String, Date)]>([])
        let results = try await pull([limited, healthy], clock: clock, limitMet: { host, feed, until in
            met.withLock { $0.append((host, feed, until)) }
        })
        let told = met.withLock { $0 }
        #expect(told.count == 1 && told.first?.1 == "feed1" && told.first?.2 == Date(timeIntervalSince1970: Double(t0 + 7_200)))
        #expect(told.first?.0.hasPrefix("127.0.0.1:") == true, "\(told)")
        let error = try #require(results[0].error)
        #expect(results[0].items.count == 3, "page 1's items are kept")
        guard case .rateLimited(let stop) = error.reason else {
            Issue.record("expected a rate-limit error, got \(error)")
            return
        }
        #expect(stop.until == Date(timeIntervalSince1970: Double(t0 + 7_200)))
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

// MARK: - Limits that end (issue 14, items 3 and 4)

/// A limit that never lifts: every request for page `page` answers `response`.
private func forever(_ response: LoopbackResponse, page: Int = 1) -> @Sendable (Int, Int) -> LoopbackResponse? {
    { requested, _ in requested == page ? response : nil }
}

/// The `GET` line of feed1's page 1 on `error`'s server, for whole-message assertions.
private func feed1Line(_ error: FeedError) throws -> (prefix: String, host: String) {
    let url = try #require(URL(string: error.url))
    let host = "127.0.0.1:\(try #require(url.port))"
    return ("feed 'feed1': GET http://\(host)/list (page 1): ", host)
}

/// One server with a list per prefix (`/a/list`, `/b/list`, …); feeds pulled one after another through one
/// engine, so the second sees what the first left in the shared rate-limit state.
private func pullInTurn(
    _ feeds: [(name: String, path: String, token: String?)], lists: [String: FlakyList], clock: FakeClock,
    events: PullEvents = PullEvents()
) async throws -> (results: [FeedResult], port: Int) {
    let base = Mutex("")
    let server = try await LoopbackHTTPServer.start { request in
        // A list's links are `<base>/list?page=N`: its prefix is its base.
        let prefix = String(request.path.dropLast("/list".count))
        guard request.path.hasSuffix("/list"), let list = lists[prefix] else {
            return LoopbackResponse(status: 404, text: "{}")
        }
        return list.handle(request, base: base.withLock { $0 } + prefix)
    }
    base.withLock { $0 = server.baseURL }
    // Timeouts far above any stall of a loaded machine: a timed-out request would be retried,
    // and the waits and request counts are what these tests check.
    let client = CurlClient(
        configuration: CurlClient.Configuration(
            totalTimeout: .seconds(300), firstByteTimeout: .seconds(300), lowSpeedTime: .seconds(300)))
    defer { client.shutdown() }
    let engine = FeedEngine(
        transport: client, pageConcurrency: 1, events: events,
        retry: RetryPolicy(sleep: { clock.wait($0) }, jitter: { 1.0 }),
        rateLimit: RateLimitPolicy(now: { clock.now }, sleep: { clock.wait($0) }))
    var results: [FeedResult] = []
    for feed in feeds {
        let url = try #require(URL(string: "\(server.baseURL)\(feed.path)"))
        results.append(
            await engine.pull(
                Feed(
                    source: RecordedListSource(firstPageURL: url, token: feed.token),
                    context: FeedContext(name: feed.name, baseURL: url, pageSize: 3))))
    }
    try await server.shutdown()
    return (results, server.port)
}

/// Events a test reads back.
private final class SeenWaits: Sendable {
    private let waits = Mutex<[RateLimitWait]>([])
    var all: [RateLimitWait] { waits.withLock { $0 } }
    func record(_ wait: RateLimitWait) { waits.withLock { $0.append(wait) } }
}

@Suite("Rate limits that end: rate_limit_wait bounds a feed's total wait; a limit met again stops the feed; per credential")
struct RateLimitEndTests {
    @Test("403 with X-RateLimit-Remaining: 0 and no reset, forever: one default wait, then stopped, saying pull again later")
    func remainingZeroForever() async throws {
        let clock = FakeClock()
        let limit = LoopbackResponse(
            status: 403, headers: [("Content-Type", "application/json"), ("X-RateLimit-Remaining", "0")],
            text: #"{"message":"API rate limit exceeded for 127.0.0.1."}"#)
        let list = FlakyList(pages: 2, script: forever(limit))
        let result = try #require(try await pull([list], clock: clock).first)
        let error = try #require(result.error)
        let (prefix, host) = try feed1Line(error)
        #expect(
            error.description
                == prefix + "rate limited by \(host) again after waiting 60 s for it, and it gives no reset time: "
                + "pull again later (after 2 tries)")
        #expect(clock.waits == [.seconds(60)])
        #expect(list.totalRequests == 2 && result.requests == 2)
    }

    @Test("an abuse 403 with Retry-After: 60, forever: waits 60 s once, then stopped until the new Retry-After")
    func abuseRetryAfterForever() async throws {
        let clock = FakeClock()
        let abuse = LoopbackResponse(
            status: 403, headers: [("Content-Type", "application/json"), ("Retry-After", "60")],
            text: #"{"message":"You have triggered an abuse detection mechanism. Please wait a few minutes before you try again."}"#)
        let list = FlakyList(pages: 2, script: forever(abuse))
        let result = try #require(try await pull([list], clock: clock, maxWait: .seconds(300)).first)
        let error = try #require(result.error)
        let (prefix, host) = try feed1Line(error)
        // t0 = 22:13:20; the second answer, 60 s later, says 60 s more.
        #expect(
            error.description
                == prefix + "rate limited by \(host) until 2023-11-14T22:15:20Z again after waiting 60 s for it: "
                + "pull again after that time (after 2 tries)")
        #expect(!error.description.contains("not a rate limit"))
        #expect(clock.waits == [.seconds(60)])
        #expect(list.totalRequests == 2 && result.requests == 2)
    }

    @Test("429 forever, no Retry-After: one default wait within rate_limit_wait, then stopped")
    func tooManyForever() async throws {
        let clock = FakeClock()
        let list = FlakyList(pages: 2, script: forever(LoopbackResponse(status: 429, text: "slow down")))
        let result = try #require(try await pull([list], clock: clock, maxWait: .seconds(90)).first)
        let error = try #require(result.error)
        let (prefix, host) = try feed1Line(error)
        #expect(
            error.description
                == prefix + "rate limited by \(host) again after waiting 60 s for it, and it gives no reset time: "
                + "pull again later (after 2 tries)")
        #expect(clock.waits == [.seconds(60)])
        #expect(list.totalRequests == 2 && result.requests == 2)
    }

    @Test("rate_limit_wait bounds the feed's total wait: 40 s on page 2, then 40 s more on page 3 is refused")
    func budgetIsPerFeedNotPerWait() async throws {
        let clock = FakeClock()
        let list = FlakyList(pages: 4) { page, attempt in
            guard attempt == 1, page == 2 || page == 3 else { return nil }
            // Page 2 at t0 resets in 40 s; page 3, asked at t0 + 40, resets 40 s after that.
            return primaryLimit(reset: t0 + (page == 2 ? 40 : 80))
        }
        let result = try #require(try await pull([list], clock: clock).first)
        let error = try #require(result.error)
        let host = "127.0.0.1:\(try #require(URL(string: error.url)?.port))"
        #expect(
            error.cause
                == "rate limited by \(host) until 2023-11-14T22:14:40Z, longer than feedagg still waits "
                + "(rate_limit_wait = 60 s, 40 s already waited): pull again after that time")
        #expect(error.page == 3)
        #expect(clock.waits == [.seconds(40)])
        #expect(list.attempts == [1: 1, 2: 2, 3: 1])
        #expect(result.items.count == 6, "pages 1 and 2 are kept")
    }

    @Test("Remaining: 0 without a reset on a 200: the next request waits the default 60 s instead of going at once")
    func pacesAfterRemainingZeroWithoutReset() async throws {
        let clock = FakeClock()
        let list = FlakyList(pages: 2) { page, _ in
            guard page == 1 else { return nil }
            return LoopbackResponse(
                status: 200,
                headers: [
                    ("Content-Type", "application/json"), ("X-RateLimit-Remaining", "0"),
                    ("Link", "</list?page=2>; rel=\"next\""),
                ],
                text: #"[{"id":101}]"#)
        }
        let seen = SeenWaits()
        let result = try #require(
            try await pullInTurn(
                [("feed1", "/list", nil)], lists: ["": list], clock: clock,
                events: PullEvents(rateLimitWait: { seen.record($0) })
            ).results.first)
        #expect(result.error == nil)
        #expect(clock.waits == [.seconds(60)])
        #expect(list.totalRequests == 2)
        #expect(seen.all.map(\.until) == [Date(timeIntervalSince1970: Double(t0 + 60))])
        #expect(seen.all.first?.message.hasPrefix("waiting for the rate limit of 127.0.0.1:") == true)
    }

    @Test("one server, two tokens: a feed limited on one token does not pause a feed on another")
    func limitsArePerCredential() async throws {
        let clock = FakeClock()
        let limited = FlakyList(pages: 1, script: forever(primaryLimit(reset: t0 + 7_200)))
        let other = FlakyList(pages: 2) { _, _ in nil }
        let (results, _) = try await pullInTurn(
            [("limited", "/a/list", "token-one"), ("other", "/b/list", "token-two")], lists: ["/a": limited, "/b": other],
            clock: clock)
        #expect(results[0].error != nil)
        #expect(results[1].error == nil && results[1].items.count == 6)
        #expect(other.totalRequests == 2 && limited.totalRequests == 1)
        #expect(clock.waits.isEmpty)
    }

    @Test("one server, one token: the second feed fails saying which feed's rate limit paused it, sending nothing")
    func sameCredentialSaysWhoHitTheLimit() async throws {
        let clock = FakeClock()
        let limited = FlakyList(pages: 1, script: forever(primaryLimit(reset: t0 + 7_200)))
        let other = FlakyList(pages: 2) { _, _ in nil }
        let (results, port) = try await pullInTurn(
            [("limited", "/a/list", "token-one"), ("other", "/b/list", "token-one")], lists: ["/a": limited, "/b": other],
            clock: clock)
        let error = try #require(results[1].error)
        #expect(
            error.description
                == "feed 'other': GET http://127.0.0.1:\(port)/b/list (page 1): paused by the rate limit that feed 'limited' "
                + "hit on 127.0.0.1:\(port) until 2023-11-15T00:13:20Z, longer than feedagg waits (rate_limit_wait = 60 s): "
                + "pull again after that time")
        #expect(other.totalRequests == 0)
        #expect(!error.description.contains("token-one"))
    }
}
