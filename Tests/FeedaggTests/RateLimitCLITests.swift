import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// Rate limits that end (issue 14, items 3 and 4) through the real `feedagg` binary against
// scripted loopback servers. The binary runs with `FEEDAGG_TEST_CLOCK=virtual@1700000000`: its
// waits for rate limits and retries advance a virtual clock instead of sleeping, and the times it
// prints are virtual (t0 = 2023-11-14T22:13:20Z). What proves that nothing was skipped is the
// number of requests each server saw.

private let virtualClock = ["FEEDAGG_TEST_CLOCK": "virtual@1700000000"]
private let json: [(name: String, value: String)] = [("Content-Type", "application/json")]

/// The lines of `text`, without the empty one after the last newline.
private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

@Suite("Rate limits that end, through the CLI (virtual clock): one wait per limit, one message that says when")
struct RateLimitCLITests {
    @Test("an abuse 403 with Retry-After: 60, forever: the wait is announced once, then the feed stops at the second answer")
    func abuseForever() async throws {
        try await FailureScene.with(environment: virtualClock) { scene in
            let seeded = try await scene.seed()
            scene.server.always(
                scene.shakyPath,
                LoopbackResponse(
                    status: 403, headers: json + [("Retry-After", "60")],
                    text: #"{"message":"You have triggered an abuse detection mechanism. Please wait a few minutes before you try again."}"#))
            let run = try await scene.pull([])
            #expect(run.status == 3, "\(run.summary)")
            let host = "127.0.0.1:\(URL(string: scene.server.baseURL)?.port ?? 0)"
            let output = lines(run.stderr)
            #expect(output.filter { $0.hasPrefix("waiting for") } == ["waiting for the rate limit of \(host) until 2023-11-14T22:14:20Z"])
            #expect(
                output.filter { $0.hasPrefix("✗") } == [
                    "✗ feed 'shaky': GET \(scene.url("/orgs/shaky/repos?per_page=3")) (page 1): rate limited by \(host) "
                        + "until 2023-11-14T22:15:20Z again after waiting 60 s for it: pull again after that time (after 2 tries)"
                ], "\(run.stderr)")
            #expect(!run.stderr.contains("not a rate limit"))
            #expect(scene.shakyRequests == 2)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("403 with X-RateLimit-Remaining: 0 and no reset, forever: one 60 s wait, then 'pull again later'")
    func remainingZeroForever() async throws {
        try await FailureScene.with(environment: virtualClock) { scene in
            let seeded = try await scene.seed()
            scene.server.always(
                scene.shakyPath,
                LoopbackResponse(
                    status: 403, headers: json + [("X-RateLimit-Remaining", "0")],
                    text: #"{"message":"API rate limit exceeded for 127.0.0.1."}"#))
            let run = try await scene.pull([])
            #expect(run.status == 3, "\(run.summary)")
            let host = "127.0.0.1:\(URL(string: scene.server.baseURL)?.port ?? 0)"
            let output = lines(run.stderr)
            #expect(output.filter { $0.hasPrefix("waiting for") } == ["waiting for the rate limit of \(host) until 2023-11-14T22:14:20Z"])
            #expect(
                output.filter { $0.hasPrefix("✗") } == [
                    "✗ feed 'shaky': GET \(scene.url("/orgs/shaky/repos?per_page=3")) (page 1): rate limited by \(host) "
                        + "again after waiting 60 s for it, and it gives no reset time: pull again later (after 2 tries)"
                ], "\(run.stderr)")
            #expect(scene.shakyRequests == 2)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("429 forever with rate_limit_wait: 30: the 60 s default pause does not fit, stopped at once; -q prints only that")
    func tooManyBeyondBudget() async throws {
        try await FailureScene.with(settings: ["retries: 0", "rate_limit_wait: 30"], environment: virtualClock) { scene in
            let seeded = try await scene.seed()
            scene.server.always(scene.shakyPath, LoopbackResponse(status: 429, headers: json, text: #"{"message":"slow down"}"#))
            let run = try await scene.pull()
            #expect(run.status == 3, "\(run.summary)")
            let host = "127.0.0.1:\(URL(string: scene.server.baseURL)?.port ?? 0)"
            #expect(
                run.stderr
                    == "✗ feed 'shaky': GET \(scene.url("/orgs/shaky/repos?per_page=3")) (page 1): rate limited by \(host) "
                    + "until 2023-11-14T22:14:20Z, longer than feedagg waits (rate_limit_wait = 30 s): pull again after that time\n")
            #expect(scene.shakyRequests == 1)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("the virtual clock is off unless FEEDAGG_TEST_CLOCK is exactly virtual[@EPOCH]: times are real then")
    func virtualClockNeedsTheExactValue() async throws {
        try await FailureScene.with(
            settings: ["retries: 0", "rate_limit_wait: 1"], environment: ["FEEDAGG_TEST_CLOCK": "1700000000"]
        ) { scene in
            scene.server.always(scene.shakyPath, LoopbackResponse(status: 429, headers: json + [("Retry-After", "3600")], text: "{}"))
            let before = Date()
            let run = try await scene.pull()
            let marker = "until "
            let range = try #require(run.stderr.range(of: marker), "\(run.summary)")
            let until = try #require(ISO8601.date(from: String(run.stderr[range.upperBound...].prefix(20))))
            #expect(until >= before.addingTimeInterval(3599), "\(run.stderr)")
        }
    }

    // MARK: Per origin and credential (item 4)

    @Test("one server, two tokens: the limited feed stops, the other completes all its pages")
    func otherTokenIsNotPaused() async throws {
        try await withSharedServer(sameToken: false) { shared, run in
            #expect(run.status == 3, "\(run.summary)")
            #expect(run.stderr == shared.limitedLine + "\n", "\(run.stderr)")
            #expect(shared.requests("/orgs/other/repos") == 2)
            #expect(shared.requests("/orgs/limited/repos") == 1)
        }
    }

    @Test("one server, one token: the other feed fails saying which feed's rate limit paused it, and keeps its page 1")
    func sameTokenSaysWhoHitTheLimit() async throws {
        try await withSharedServer(sameToken: true) { shared, run in
            #expect(run.status == 4, "\(run.summary)")
            let paused =
                "✗ feed 'other': GET \(shared.base)/orgs/other/repos?per_page=3&page=2 (page 2): paused by the rate limit "
                + "that feed 'limited' hit on \(shared.host) until 2023-11-14T23:13:20Z, longer than feedagg waits "
                + "(rate_limit_wait = 60 s): pull again after that time (the 3 items fetched before the failure are saved; "
                + "the next pull resumes at page 2)"
            #expect(lines(run.stderr).sorted() == [shared.limitedLine, paused].sorted(), "\(run.stderr)")
            #expect(shared.requests("/orgs/other/repos") == 1, "page 2 is never sent")
            #expect(shared.requests("/orgs/limited/repos") == 1)
        }
    }
}

/// Two `github.repos` feeds on one loopback server: `limited` always answers GitHub's primary
/// limit (reset an hour after the virtual t0), `other` lists 6 repositories, 3 per page. Page 1
/// of `other` is answered only after `limited`'s answer went out (and 2 s more: time for a loaded machine to record the limit), so its page 2
/// is asked for after the limit is known.
private final class SharedServer: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    private let limitedAnswered = Mutex(false)
    let base: String
    let server: LoopbackHTTPServer

    var host: String { "127.0.0.1:\(server.port)" }
    var limitedLine: String {
        "✗ feed 'limited': GET \(base)/orgs/limited/repos?per_page=3 (page 1): rate limited by \(host) until "
            + "2023-11-14T23:13:20Z, longer than feedagg waits (rate_limit_wait = 60 s): pull again after that time"
    }

    func requests(_ path: String) -> Int { counts.withLock { $0[path] ?? 0 } }

    private init(server: LoopbackHTTPServer) {
        self.server = server
        self.base = server.baseURL
    }

    static func start() async throws -> SharedServer {
        let state = Mutex<SharedServer?>(nil)
        let server = try await LoopbackHTTPServer.start { request in
            guard let shared = state.withLock({ $0 }) else { return LoopbackResponse(status: 503, text: "{}") }
            return await shared.respond(request)
        }
        let shared = SharedServer(server: server)
        state.withLock { $0 = shared }
        return shared
    }

    private func respond(_ request: LoopbackRequest) async -> LoopbackResponse {
        counts.withLock { $0[request.path, default: 0] += 1 }
        switch request.path {
        case "/orgs/limited/repos":
            // The limit is answered once the other feed's page 1 is in flight, so that its page 1
            // is sent before the pause in every run (on a loaded machine the limit could otherwise
            // come back first and pause page 1 too). Five seconds at most.
            for _ in 0..<500 where requests("/orgs/other/repos") == 0 { try? await Task.sleep(for: .milliseconds(10)) }
            defer { limitedAnswered.withLock { $0 = true } }
            return primaryLimit(reset: 1_700_003_600)
        case "/orgs/other/repos":
            let page = FaultServer.query(request)["page"].flatMap(Int.init) ?? 1
            if page == 1 {
                while !limitedAnswered.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
                try? await Task.sleep(for: .seconds(2))
            }
            return ReposPages.page(request, ids: 1...6, page: page, base: base)
        default:
            return LoopbackResponse(status: 404, text: #"{"message":"Not Found"}"#)
        }
    }
}

/// Pulls `limited` (token A) and `other` (token A, or B) from one ``SharedServer`` with `-q`.
private func withSharedServer(
    sameToken: Bool, _ body: (SharedServer, ProcessOutput) async throws -> Void
) async throws {
    let shared = try await SharedServer.start()
    let folder = try TemporaryFolder("feedagg-ratelimit")
    defer { folder.remove() }
    do {
        let config = try folder.write(
            "feeds.yaml",
            """
            feeds:
              - name: limited
                source: github.repos
                org: limited
                base_url: \(shared.base)
                per_page: 3
                token: ${TOKEN_A}
              - name: other
                source: github.repos
                org: other
                base_url: \(shared.base)
                per_page: 3
                token: ${\(sameToken ? "TOKEN_A" : "TOKEN_B")}

            """)
        var environment = TestBinary.cleanEnvironment
        environment.merge(virtualClock) { _, new in new }
        environment["TOKEN_A"] = "token-a-\(UUID().uuidString)"
        environment["TOKEN_B"] = "token-b-\(UUID().uuidString)"
        let run = try await TestBinary.runFeedagg(
            ["pull", "-q", "--config", config.path, "--db", folder.url.appendingPathComponent("store.sqlite").path],
            environment: environment, currentDirectory: folder.url, timeout: .seconds(120))
        try await body(shared, run)
        #expect(!run.stderr.contains(environment["TOKEN_A"] ?? "?") && !run.stdout.contains(environment["TOKEN_A"] ?? "?"))
    } catch {
        try? await shared.server.shutdown()
        throw error
    }
    try await shared.server.shutdown()
}
