import FeedaggTesting
import Foundation
import LoopbackServer
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Nothing private in any answer: a feed whose token comes from a `token_file`, one whose token is
// an environment variable, and one whose URL carries `?private_token=`, each against an API that
// fails and echoes what it was sent. No secret, file path or variable name reaches an HTTP answer
// (body or header), serve's log, or `feedagg feeds`; the store keeps the errors redacted.

@Suite("serve: nothing private in any answer")
struct ServeLeakTests {
    static let fileToken = "ghp_fromTheTokenFile0123456789"
    static let envToken = "ghp_fromTheEnvironment98765"
    static let urlToken = "glpat-inTheQueryString4242"

    @Test("token_file contents and path, an env token and its variable's name, a ?private_token= value: in no answer, log line or CLI output")
    func noLeaks() async throws {
        let folder = try TemporaryFolder("feedagg-serve-leaks")
        defer { folder.remove() }
        // Every request fails with a message echoing its credentials and its URL, as careless APIs do.
        let api = try await LoopbackHTTPServer.start { request in
            let echoed = "auth=\(request.header("Authorization") ?? "-") url=http://127.0.0.1\(request.target)"
            return LoopbackResponse(
                status: 401, headers: [(name: "Content-Type", value: "application/json")],
                text: #"{"message":"bad credentials (\#(echoed))"}"#)
        }
        let tokenFile = try folder.write("gh-token", Self.fileToken + "\n")
        chmod(tokenFile.path, 0o600)
        let yaml = """
            settings:
              interval: 1h
              retries: 0
            feeds:
              - name: from-file
                source: github.repos
                org: acme
                base_url: \(api.baseURL)
                token_file: \(tokenFile.path)
              - name: from-env
                source: github.repos
                org: beta
                base_url: \(api.baseURL)
                token: ${LEAK_TEST_TOKEN}
              - name: private-feed
                source: http
                base_url: \(api.baseURL)
                url: "{+base_url}/private/items.json?private_token=\(Self.urlToken)&page_size=5"
                items: "$"
                fields: { id: "$.id", title: "$.name" }

            """
        let config = try folder.write("feeds.yaml", yaml)
        var environment = TestBinary.cleanEnvironment
        environment["LEAK_TEST_TOKEN"] = Self.envToken
        let serve = try await ServeProcess.start(
            ["--config", config.path, "--db", folder.path("store.sqlite"), "--verbose"], environment: environment)
        defer { serve.process.kill() }
        let client = ServeClient()
        try await ServeScheduleTests.eventually("all three feeds failed once") {
            let (text, _) = try await client.text(serve.url("/api/feeds"))
            return text.components(separatedBy: "bad credentials").count == 4
        }
        let secrets = [Self.fileToken, Self.envToken, Self.urlToken]
        let privateTexts = secrets + [tokenFile.path, folder.url.path, "gh-token", "LEAK_TEST_TOKEN", "store.sqlite"]
        for path in ["/", "/api/feeds", "/api/refresh/status", "/api/items", "/stream.atom", "/stream.json", "/metrics",
            "/feeds/private-feed.json", "/feeds/from-file.atom", "/healthz", "/nowhere", "/api/items?after=bogus"]
        {
            let response = try await client.send(serve.url(path))
            let headers = response.headers.fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
            let text = String(decoding: response.body, as: UTF8.self) + "\n" + headers
            for secret in privateTexts {
                #expect(!text.contains(secret), "GET \(path) shows '\(secret)':\n\(text.prefix(3000))")
            }
        }
        let (feeds, _) = try await client.text(serve.url("/api/feeds"))
        let listed = try jsonObject(feeds)["feeds"] as? [[String: Any]] ?? []
        #expect(listed.first { $0["name"] as? String == "from-file" }?["token"] as? Bool == true, "token says only that one is set")
        #expect(listed.allSatisfy { $0["token"] is Bool }, "token is true or false, never a name: \(listed)")
        #expect(feeds.contains("private_token=REDACTED"), "the URL is shown, its secret redacted: \(feeds.prefix(2000))")
        #expect(feeds.contains("auth=token REDACTED") || feeds.contains("auth=REDACTED"), "the echoed credential is redacted: \(feeds.prefix(2000))")
        let output = try await serve.stop()
        for secret in secrets {
            #expect(!output.stderr.contains(secret), "serve's log shows '\(secret)':\n\(output.stderr.suffix(3000))")
        }
        // On the machine: `feedagg feeds` (table and JSON) and the stored errors.
        for format in ["table", "json"] {
            let cli = try await TestBinary.runFeedagg(
                ["feeds", "--config", config.path, "--db", folder.path("store.sqlite"), "--format", format],
                environment: environment)
            for secret in secrets {
                #expect(!cli.stdout.contains(secret) && !cli.stderr.contains(secret), "feeds --format \(format) shows '\(secret)'")
            }
        }
        let dump = try Data(contentsOf: folder.url.appendingPathComponent("store.sqlite"))
        for secret in secrets {
            #expect(dump.range(of: Data(("bad credentials" + secret).utf8)) == nil)
            #expect(dump.range(of: Data(secret.utf8)) == nil, "the store holds '\(secret)'")
        }
        try await api.shutdown()
    }
}
