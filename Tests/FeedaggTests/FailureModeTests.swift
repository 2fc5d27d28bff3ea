import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// One test per failure mode of issue 5, through the real `feedagg` binary, the real libcurl
// client, a real SQLite store and a scripted loopback fault server (FaultServer.swift). Each test
// seeds the store with a clean pull of the failing feed (`shaky`) and a healthy one, scripts the
// fault, pulls again and checks: the exact failure line on standard error (with `-q`, standard
// error holds nothing else), the exit status, how many requests reached the failing feed's
// pages, and that every stored item survived while the healthy feed completed.
//
// Rate limits use a 1 s `rate_limit_wait` against resets an hour away, so no test waits for a
// window; retried failures wait the real backoff (0.25–0.5 s, then 0.5–1 s).

/// `application/json`.
private let json: [(name: String, value: String)] = [("Content-Type", "application/json")]

/// The failure line `feedagg` prints for `shaky` failing at `url`, page `page`.
private func failureLine(_ url: String, page: Int = 1, _ cause: String) -> String {
    "✗ feed 'shaky': GET \(url) (page \(page)): \(cause)"
}

/// Runs the scene's second pull after `script` and checks the common expectations.
private func pullWithFault(
    _ scene: FailureScene, line expected: String, status: Int32 = 3, requests: Int,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) async throws -> ProcessOutput {
    try await pullWithFault(scene, line: expected, status: status, requests: requests...requests, sourceLocation: sourceLocation)
}

/// As above, for a fault met while later pages are in flight: whether those reached the server
/// before the failure cancelled them depends on scheduling, so the count is a range.
private func pullWithFault(
    _ scene: FailureScene, line expected: String, status: Int32 = 3, requests: ClosedRange<Int>,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) async throws -> ProcessOutput {
    let run = try await scene.pull()
    #expect(run.status == status, "\(run.summary)", sourceLocation: sourceLocation)
    #expect(run.stderr == expected + "\n", sourceLocation: sourceLocation)
    #expect(
        requests.contains(scene.shakyRequests), "\(scene.server.requests(to: scene.shakyPath).map(\.target))",
        sourceLocation: sourceLocation)
    return run
}

@Suite("Failure modes through the CLI: exact message, exit status, request count, nothing lost")
struct FailureModeTests {
    // MARK: Broken connections and bodies (retried: `retries: 1` → 2 requests)

    @Test("connection reset after the response head: retried, then reported")
    func connectionReset() async throws {
        try await FailureScene.with(settings: ["retries: 1"]) { scene in
            let seeded = try await scene.seed()
            scene.server.always(scene.shakyPath, LoopbackResponse(status: 200, headers: json, text: "[]", fault: .resetAfterHead))
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3"),
                    "bad response: Failure when receiving data from the peer: Recv failure: Connection reset by peer [curl error 56] (after 2 tries)"),
                requests: 2)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("connection closed without any response: retried, then reported")
    func closedWithoutResponse() async throws {
        try await FailureScene.with(settings: ["retries: 1"]) { scene in
            let seeded = try await scene.seed()
            scene.server.always(scene.shakyPath, LoopbackResponse(status: 200, fault: .closeWithoutResponse))
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3"),
                    "bad response: Server returned nothing (no headers, no data): Empty reply from server [curl error 52] (after 2 tries)"),
                requests: 2)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("a body cut short of its Content-Length: retried, then reported")
    func truncatedBody() async throws {
        try await FailureScene.with(settings: ["retries: 1"]) { scene in
            let seeded = try await scene.seed()
            let body = "[" + ReposPages.repoJSON(1) + "]"
            scene.server.always(scene.shakyPath, LoopbackResponse(status: 200, headers: json, text: body, fault: .truncateBody(afterBytes: 10)))
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3"),
                    "bad response: Transferred a partial file: transfer closed with \(body.utf8.count - 10) bytes remaining to read [curl error 18] (after 2 tries)"),
                requests: 2)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("a Content-Length larger than the body sent: retried, then reported")
    func contentLengthTooLarge() async throws {
        try await FailureScene.with(settings: ["retries: 1"]) { scene in
            let seeded = try await scene.seed()
            let body = "[" + ReposPages.repoJSON(1) + "]"
            scene.server.always(
                scene.shakyPath, LoopbackResponse(status: 200, headers: json, text: body, fault: .wrongContentLength(body.utf8.count + 100)))
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3"),
                    "bad response: Transferred a partial file: transfer closed with 100 bytes remaining to read [curl error 18] (after 2 tries)"),
                requests: 2)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("a Content-Length smaller than the body sent: the JSON read is cut short (not retried)")
    func contentLengthTooSmall() async throws {
        try await FailureScene.with(settings: ["retries: 1"]) { scene in
            let seeded = try await scene.seed()
            let body = "[" + ReposPages.repoJSON(1) + "]"
            scene.server.always(scene.shakyPath, LoopbackResponse(status: 200, headers: json, text: body, fault: .wrongContentLength(20)))
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3"),
                    "unexpected response: malformed JSON: unterminated string at $[0]"),
                requests: 1)
            try await scene.expectIntact(seeded)
        }
    }

    // MARK: Timeouts

    @Test("a server that never answers is cut off by first_byte_timeout (retried once)")
    func firstByteStall() async throws {
        try await FailureScene.with(settings: ["retries: 1", "timeout: 60"], faultSettings: ["first_byte_timeout: 4"]) { scene in
            let seeded = try await scene.seed()
            scene.server.always(scene.shakyPath, LoopbackResponse(status: 200, headers: json, text: "[]", delay: .seconds(60)))
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3"), "timed out: no response within 4 s (first_byte_timeout) (after 2 tries)"),
                requests: 2)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("a body trickling forever is cut off by timeout (the total), though bytes keep coming")
    func trickleCutByTotalTimeout() async throws {
        try await FailureScene.with(settings: ["retries: 0"], faultSettings: ["timeout: 8"]) { scene in
            let seeded = try await scene.seed()
            let body = "[" + String(repeating: " ", count: 100_000) + "]"
            scene.server.always(
                scene.shakyPath,
                LoopbackResponse(status: 200, headers: json, text: body, fault: .trickle(bytesPerChunk: 10, interval: .milliseconds(50))))
            _ = try await pullWithFault(
                scene,
                line: failureLine(scene.url("/orgs/shaky/repos?per_page=3"), "timed out: no complete response within 8 s (timeout)"),
                requests: 1)
            try await scene.expectIntact(seeded)
        }
    }

    // MARK: HTTP statuses

    @Test("500, 502, 503 and 504 are retried until the tries run out", arguments: [500, 502, 503, 504])
    func serverErrorsRetried(status: Int) async throws {
        try await FailureScene.with(settings: ["retries: 2"]) { scene in
            let seeded = try await scene.seed()
            scene.server.always(scene.shakyPath, LoopbackResponse(status: status, headers: json, text: #"{"message":"upstream trouble"}"#))
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3"),
                    "HTTP \(status) \(HTTPStatus.phrase(status)): upstream trouble (after 3 tries)"),
                requests: 3)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("400, 401, 404, 410 and 422 are reported at once, never retried", arguments: [400, 401, 404, 410, 422])
    func clientErrorsNotRetried(status: Int) async throws {
        try await FailureScene.with(settings: ["retries: 2"]) { scene in
            let seeded = try await scene.seed()
            scene.server.always(scene.shakyPath, LoopbackResponse(status: status, headers: json, text: #"{"message":"no such thing"}"#))
            _ = try await pullWithFault(
                scene,
                line: failureLine(scene.url("/orgs/shaky/repos?per_page=3"), "HTTP \(status) \(HTTPStatus.phrase(status)): no such thing"),
                requests: 1)
            try await scene.expectIntact(seeded)
        }
    }

    // MARK: Rate limits (budget 1 s, resets an hour away: nothing waits)

    @Test("429 with a Retry-After beyond rate_limit_wait: stopped at once, saying when to pull again")
    func tooManyRequestsBeyondBudget() async throws {
        try await FailureScene.with(settings: ["retries: 2", "rate_limit_wait: 1"]) { scene in
            let seeded = try await scene.seed()
            scene.server.always(
                scene.shakyPath, LoopbackResponse(status: 429, headers: json + [("Retry-After", "3600")], text: #"{"message":"slow down"}"#))
            let before = Date()
            let run = try await scene.pull()
            let after = Date()
            #expect(run.status == 3, "\(run.summary)")
            let port = URL(string: scene.server.baseURL)?.port ?? 0
            let prefix = failureLine(scene.url("/orgs/shaky/repos?per_page=3"), "rate limited by 127.0.0.1:\(port) until ")
            let suffix = ", longer than feedagg waits (rate_limit_wait = 1 s): pull again after that time\n"
            #expect(wholeMatch(run.stderr, literal(prefix) + #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"# + literal(suffix)), "\(run.stderr)")
            let until = ISO8601.date(from: String(run.stderr.dropFirst(prefix.count).prefix(20)))
            #expect(until.map { $0 >= before.addingTimeInterval(3599) && $0 <= after.addingTimeInterval(3601) } == true, "\(run.stderr)")
            #expect(scene.shakyRequests == 1)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("403 with X-RateLimit-Remaining: 0 and a reset beyond the budget: stopped until the reset")
    func primaryLimitBeyondBudget() async throws {
        try await FailureScene.with(settings: ["retries: 2", "rate_limit_wait: 1"]) { scene in
            let seeded = try await scene.seed()
            let reset = Int(Date().timeIntervalSince1970) + 3600
            scene.server.always(
                scene.shakyPath,
                LoopbackResponse(
                    status: 403,
                    headers: json + [("X-RateLimit-Limit", "5000"), ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", String(reset))],
                    text: #"{"message":"API rate limit exceeded for 127.0.0.1."}"#))
            let port = URL(string: scene.server.baseURL)?.port ?? 0
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3"),
                    "rate limited by 127.0.0.1:\(port) until \(ISO8601.string(from: Date(timeIntervalSince1970: Double(reset)))), "
                        + "longer than feedagg waits (rate_limit_wait = 1 s): pull again after that time"),
                requests: 1)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("403 with GitHub's secondary-limit message and no headers: the default 60 s pause exceeds the budget")
    func secondaryLimitBeyondBudget() async throws {
        try await FailureScene.with(settings: ["retries: 2", "rate_limit_wait: 1"]) { scene in
            let seeded = try await scene.seed()
            scene.server.always(
                scene.shakyPath,
                LoopbackResponse(
                    status: 403, headers: json,
                    text: #"{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}"#))
            let run = try await scene.pull()
            #expect(run.status == 3, "\(run.summary)")
            let port = URL(string: scene.server.baseURL)?.port ?? 0
            let prefix = failureLine(scene.url("/orgs/shaky/repos?per_page=3"), "rate limited by 127.0.0.1:\(port) until ")
            let suffix = ", longer than feedagg waits (rate_limit_wait = 1 s): pull again after that time\n"
            #expect(wholeMatch(run.stderr, literal(prefix) + #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"# + literal(suffix)), "\(run.stderr)")
            #expect(scene.shakyRequests == 1)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("a 403 that is not a rate limit is reported as such, at once, with one request")
    func forbiddenIsNotARateLimit() async throws {
        try await FailureScene.with(settings: ["retries: 2", "rate_limit_wait: 1"]) { scene in
            let seeded = try await scene.seed()
            scene.server.always(
                scene.shakyPath,
                LoopbackResponse(
                    status: 403, headers: json + [("X-RateLimit-Remaining", "4999")],
                    text: #"{"message":"Resource not accessible by integration"}"#))
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3"), "HTTP 403 Forbidden: Resource not accessible by integration (not a rate limit)"),
                requests: 1)
            try await scene.expectIntact(seeded)
        }
    }

    // MARK: Bad bodies (never retried: the server answered)

    /// A 200 whose body is `body` on page 1 of `shaky` (github.repos) fails with `cause`.
    private func expectBadBody(
        _ body: [UInt8], headers: [(name: String, value: String)] = json, cause: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws {
        try await FailureScene.with(settings: ["retries: 2"]) { scene in
            let seeded = try await scene.seed()
            scene.server.always(scene.shakyPath, LoopbackResponse(status: 200, headers: headers, body: body))
            _ = try await pullWithFault(
                scene, line: failureLine(scene.url("/orgs/shaky/repos?per_page=3"), cause), requests: 1,
                sourceLocation: sourceLocation)
            try await scene.expectIntact(seeded, sourceLocation: sourceLocation)
        }
    }

    @Test("malformed JSON")
    func malformedJSON() async throws {
        try await expectBadBody(
            Array(#"[{"id":1,"name":}]"#.utf8), cause: "unexpected response: malformed JSON: expected a value at byte 16 at $[0]")
    }

    @Test("truncated JSON (a 200 whose JSON stops mid-way, Content-Length matching)")
    func truncatedJSON() async throws {
        try await expectBadBody(
            Array(#"[{"id":1,"name":"repo-1"},{"id":2,"na"#.utf8),
            cause: "unexpected response: malformed JSON: unterminated string at $[1]")
    }

    @Test("null where a string is expected, named by its JSON path")
    func nullWhereStringExpected() async throws {
        try await expectBadBody(
            Array(("[" + ReposPages.repoJSON(1) + #",{"id":2,"name":null}]"#).utf8),
            cause: "unexpected response: expected a string, found null at $[1].name")
    }

    @Test("bytes that are not UTF-8")
    func notUTF8() async throws {
        try await expectBadBody(
            Array(#"[{"id":1,"name":""#.utf8) + [0xFF, 0xFE, 0x80] + Array(#""}]"#.utf8),
            cause: "unexpected response: malformed JSON: invalid UTF-8 at byte 17 at $[0]")
    }

    @Test("a number too large for an id")
    func hugeNumber() async throws {
        try await expectBadBody(
            Array(#"[{"id":123456789012345678901234567890,"name":"big"}]"#.utf8),
            cause: "unexpected response: number 123456789012345678901234567890 is out of range at $[0].id")
    }

    @Test("an HTML error page served with status 200")
    func htmlWithStatus200() async throws {
        try await expectBadBody(
            Array("<!DOCTYPE html><html><body><h1>Service Unavailable</h1></body></html>".utf8),
            headers: [("Content-Type", "text/html; charset=utf-8")],
            cause: "unexpected response: expected a JSON body, got Content-Type 'text/html; charset=utf-8' at $")
    }

    @Test("JSON nested deeper than the bound")
    func excessiveNesting() async throws {
        try await expectBadBody(
            Array(("[{\"id\":1,\"name\":\"n\",\"x\":" + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}]").utf8),
            cause: "unexpected response: JSON nested deeper than 64 levels at $[0]")
    }

    @Test("a body over the size cap (64 MiB) is refused")
    func oversizedBody() async throws {
        try await FailureScene.with(settings: ["retries: 2"]) { scene in
            let seeded = try await scene.seed()
            let body = [UInt8]("[".utf8) + [UInt8](repeating: 0x20, count: 64 << 20) + [UInt8]("]".utf8)
            scene.server.always(scene.shakyPath, LoopbackResponse(status: 200, headers: json, body: body))
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3"),
                    "response too large: response body exceeds the limit of 67108864 bytes; Maximum file size exceeded [curl error 63]"),
                requests: 1)
            try await scene.expectIntact(seeded)
        }
    }

    // MARK: Wrong shapes (photos.500px)

    /// A 200 whose body is `body` on page 1 of `shaky` (photos.500px) fails with `cause`.
    private func expectBadEnvelope(_ body: String, cause: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        try await FailureScene.with(.photos(), settings: ["retries: 2"]) { scene in
            let seeded = try await scene.seed()
            scene.server.always(scene.shakyPath, LoopbackResponse(status: 200, headers: json, text: body))
            _ = try await pullWithFault(
                scene, line: failureLine(scene.url("/px/v1/photos?feature=popular&page=1&rpp=3"), cause), requests: 1,
                sourceLocation: sourceLocation)
            try await scene.expectIntact(seeded, sourceLocation: sourceLocation)
        }
    }

    @Test("a bare array where the 500px envelope is expected")
    func bareArrayForEnvelope() async throws {
        try await expectBadEnvelope(
            #"[{"id":1,"name":"photo-1"}]"#,
            cause: "unexpected response: expected the 500px envelope object {current_page, total_pages, total_items, photos: [...]}, found a bare array at $")
    }

    @Test("an envelope without total_pages")
    func missingTotalPages() async throws {
        try await expectBadEnvelope(
            #"{"current_page":1,"total_items":3,"photos":[{"id":1,"name":"photo-1"}]}"#,
            cause: "unexpected response: expected the page count (an integer), found nothing (absent or null) at $.total_pages")
    }

    // MARK: Pagination safety

    @Test("a next link back to a page already fetched: a pagination cycle")
    func paginationCycle() async throws {
        try await FailureScene.with(.repos(ids: 1...6)) { scene in
            let seeded = try await scene.seed()
            let base = scene.server.baseURL
            scene.server.always(
                scene.shakyPath, page: 2,
                LoopbackResponse(
                    status: 200, headers: json + [("Link", "<\(base)/orgs/shaky/repos?per_page=3>; rel=\"next\"")],
                    text: "[" + ReposPages.repoJSON(4) + "]"))
            scene.server.always(
                scene.shakyPath,
                LoopbackResponse(
                    status: 200, headers: json + [("Link", "<\(base)/orgs/shaky/repos?per_page=3&page=2>; rel=\"next\"")],
                    text: "[" + ReposPages.repoJSON(1) + "]"))
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3"), page: 3,
                    "pagination cycle: the next link points at a page already fetched (the 2 items fetched before the failure are saved)"),
                requests: 2)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("an empty page before the announced last page")
    func emptyPageInTheMiddle() async throws {
        try await FailureScene.with(.repos(ids: 1...9)) { scene in
            let seeded = try await scene.seed()
            scene.server.always(scene.shakyPath, page: 2, LoopbackResponse(status: 200, headers: json, text: "[]"))
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/orgs/shaky/repos?per_page=3&page=2"), page: 2,
                    "inconsistent pagination: page 2 is empty, but page 1 announced 3 pages (the 3 items fetched before the failure are saved)"),
                // Page 3 is fetched beside page 2; page 2's failure may cancel it before it is sent.
                requests: 2...3)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("a later page reporting another page count than page 1")
    func pageCountDisagrees() async throws {
        try await FailureScene.with(.photos(ids: 1...12)) { scene in
            let seeded = try await scene.seed()
            scene.server.script(scene.shakyPath, page: 3) { _, _ in
                LoopbackResponse(
                    status: 200, headers: json,
                    text: #"{"current_page":3,"total_pages":5,"total_items":15,"photos":[{"id":7,"name":"photo-7"}]}"#)
            }
            _ = try await pullWithFault(
                scene,
                line: failureLine(
                    scene.url("/px/v1/photos?feature=popular&page=3&rpp=3"), page: 3,
                    "inconsistent pagination: page 3 reports 5 pages but page 1 reported 4 (the listing changed during the pull; pull again) (the 6 items fetched before the failure are saved)"),
                // Page 4 is fetched beside page 3; page 3's failure may cancel it before it is sent.
                requests: 3...4)
            try await scene.expectIntact(seeded)
        }
    }

    @Test("max_pages reached: a note, not a failure (exit 0)")
    func maxPagesReached() async throws {
        try await FailureScene.with(.repos(ids: 1...9), shakyKeys: ["max_pages: 2"]) { scene in
            let seeded = try await scene.seed()
            let run = try await scene.pull([])
            #expect(run.status == 0, "\(run.summary)")
            let lines = run.stderr.split(separator: "\n").map(String.init)
            #expect(lines.contains("  note: feed 'shaky': stopped at max_pages = 2 of 3 pages"), "\(run.stderr)")
            #expect(!lines.contains { $0.hasPrefix("✗") }, "\(run.stderr)")
            #expect(scene.shakyRequests == 2)
            try await scene.expectIntact(seeded)
        }
    }

    // MARK: Credentials

    @Test("a next link to another origin is followed without the token")
    func crossOriginNextLinkWithoutToken() async throws {
        let token = "ghp_SENTINEL_\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        try await FailureScene.with(.repos(ids: 1...3), shakyKeys: ["token: ${SHAKY_TOKEN}"], environment: ["SHAKY_TOKEN": token]) { scene in
            let elsewhere = scene.healthyServer  // another origin (its own port)
            elsewhere.serve("/elsewhere/repos", .repos(ids: 4...6))
            let seeded = try await scene.seed()
            scene.server.always(
                scene.shakyPath,
                LoopbackResponse(
                    status: 200, headers: json + [("Link", "<\(elsewhere.baseURL)/elsewhere/repos?per_page=3>; rel=\"next\"")],
                    text: "[" + (1...3).map(ReposPages.repoJSON).joined(separator: ",") + "]"))
            let run = try await scene.pull()
            #expect(run.status == 0, "\(run.summary)")
            #expect(run.stderr == "")
            #expect(scene.shakyRequests == 1)
            #expect(scene.server.requests(to: scene.shakyPath).allSatisfy { $0.header("Authorization") == "Bearer \(token)" })
            let away = elsewhere.requests(to: "/elsewhere/repos")
            #expect(away.count == 1)
            #expect(away.allSatisfy { $0.header("Authorization") == nil }, "the token left its origin")
            #expect(try await scene.storedIDs("shaky") == seeded.shaky.union((4...6).map { "github.repos:\($0)" }))
            try await scene.expectIntact(seeded)
        }
    }

    @Test("token_file: the token of a 0600 file goes to its origin (github.repos and source: http), never printed; a 0644 file stops the run before any request")
    func tokenFromFile() async throws {
        let token = "ghp_SENTINEL_\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        let server = try await FaultServer.start()
        let folder = try TemporaryFolder("feedagg-token-file")
        do {
            server.serve("/orgs/acme/repos", .repos(ids: 1...2))
            server.serve("/api/items", .repos(ids: 11...12))
            let secretFile = try folder.write("gh-token", token + "\n")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secretFile.path)
            let config = try folder.write(
                "feeds.yaml",
                """
                feeds:
                  - name: repos
                    source: github.repos
                    org: acme
                    base_url: \(server.baseURL)
                    token_file: gh-token
                  - name: declared
                    source: http
                    base_url: \(server.baseURL)
                    url: "{+base_url}/api/items{?per_page}"
                    per_page: 5
                    items: "$"
                    fields: { id: "$.id", title: "$.name" }
                    token_file: gh-token

                """)
            let db = folder.url.appendingPathComponent("s.sqlite").path
            let run = try await TestBinary.runFeedagg(
                ["pull", "--config", config.path, "--db", db, "--verbose", "--format", "json"], currentDirectory: folder.url)
            #expect(run.status == 0, "\(run.summary)")
            #expect(!run.stderr.contains(token) && !run.stdout.contains(token), "the token leaked:\n\(run.stderr)")
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests.allSatisfy { $0.header("Authorization") == "Bearer \(token)" }, "\(requests.map { $0.headers })")

            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secretFile.path)
            server.resetLog()
            let refused = try await TestBinary.runFeedagg(
                ["pull", "--config", config.path, "--db", db], currentDirectory: folder.url)
            #expect(refused.status == 2, "\(refused.summary)")
            #expect(
                refused.stderr.hasPrefix(
                    "\(config.path):6:5: error: token_file gh-token is readable by others (mode 0644); chmod 600 it\n"),
                "\(refused.stderr)")
            #expect(!refused.stderr.contains(token))
            #expect(server.requests.isEmpty, "nothing is fetched with a bad configuration")
        } catch {
            await server.shutdown()
            folder.remove()
            throw error
        }
        await server.shutdown()
        folder.remove()
    }

    @Test("--verbose logs every request, and a server echoing the token never gets it printed")
    func tokenNeverInVerboseOutput() async throws {
        let token = "ghp_SENTINEL_\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        try await FailureScene.with(shakyKeys: ["token: ${SHAKY_TOKEN}"], environment: ["SHAKY_TOKEN": token]) { scene in
            let seeded = try await scene.seed()
            scene.server.script(scene.shakyPath) { _, request in
                LoopbackResponse(
                    status: 401, headers: json + [("WWW-Authenticate", request.header("Authorization") ?? "")],
                    text: #"{"message":"Bad credentials: \#(request.header("Authorization") ?? "none")"}"#)
            }
            let run = try await scene.pull(["--verbose"])
            #expect(run.status == 3, "\(run.summary)")
            #expect(!run.stderr.contains(token) && !run.stdout.contains(token), "the token leaked:\n\(run.stderr)")
            let lines = run.stderr.split(separator: "\n").map(String.init)
            let url = scene.url("/orgs/shaky/repos?per_page=3")
            #expect(lines.contains { wholeMatch($0, literal("GET \(url) → 401 · ") + #"\d+ B · \d+ ms · network \[shaky\]"#) }, "\(run.stderr)")
            #expect(lines.contains(failureLine(url, "HTTP 401 Unauthorized: Bad credentials: REDACTED")), "\(run.stderr)")
            #expect(scene.shakyRequests == 1)
            try await scene.expectIntact(seeded)
        }
    }
}
