import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// What a pull logs as requests (issue 14, item 15): a redirect hop appears in the `--verbose` log.
// Requests cancelled because a fanned-out walk ended: FeedCoreTests/RequestCountTests.swift.

@Suite("The request log: a redirect hop appears in the --verbose log")
struct RequestLogCLITests {
    @Test("--verbose shows a redirect hop: GET <url> → 301 → <new url> → 200, the secret in the Location redacted")
    func redirectHopIsLogged() async throws {
        let folder = try TemporaryFolder("feedagg-redirect")
        defer { folder.remove() }
        let base = Mutex("")
        let server = try await LoopbackHTTPServer.start { request in
            if request.path == "/orgs/old/repos" {
                return LoopbackResponse(
                    status: 301, headers: [("Location", "/orgs/new/repos?per_page=3&access_token=SEKRIT-REDIRECT")], text: "")
            }
            return ReposPages.page(request, ids: 1...2, page: 1, base: base.withLock { $0 })
        }
        base.withLock { $0 = server.baseURL }
        let config = try folder.write(
            "feeds.yaml",
            """
            feeds:
              - name: moved
                source: github.repos
                org: old
                base_url: \(server.baseURL)
                per_page: 3

            """)
        let run = try await TestBinary.runFeedagg(
            ["pull", "--verbose", "--config", config.path, "--db", folder.url.appendingPathComponent("store.sqlite").path],
            currentDirectory: folder.url, timeout: .seconds(120))
        try await server.shutdown()
        #expect(run.status == 0, "\(run.summary)")
        let logged = run.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("GET ") }
        let expected =
            literal("GET \(server.baseURL)/orgs/old/repos?per_page=3 → 301 → \(server.baseURL)/orgs/new/repos?per_page=3&access_token=REDACTED → 200 · ")
            + #"\d+ B · \d+ ms · network \[moved\]"#
        #expect(logged.count == 1 && wholeMatch(logged[0], expected), "\(run.stderr)")
        #expect(!run.stderr.contains("SEKRIT"))
    }
}
