import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Issue 25's attacks on a loopback `feedagg serve`, each through the real binary: a page on
// another site (DNS rebinding, cross-site POSTs), a refresh storm, a refresh during backoff,
// oversized requests, short or guessed tokens.

@Suite("serve: other sites get nothing, refreshes cannot burn credentials, bounded requests, tokens")
struct ServeSecurityTests {
    /// feeds.yaml: github.repos feeds against `base`, with `settings` lines.
    static func yaml(_ orgs: [String], base: URL, settings: [String]) -> String {
        var text = "settings:\n  interval: 1h\n  page_concurrency: 1\n" + settings.map { "  \($0)\n" }.joined() + "feeds:\n"
        for org in orgs {
            text += "  - name: \(org)\n    source: github.repos\n    org: \(org)\n    per_page: 10\n    base_url: \(base.absoluteString)\n"
        }
        return text
    }

    /// Every route the server answers (the POST apart).
    static let routes = [
        "/", "/api/items", "/api/items?limit=5", "/api/feeds", "/stream.atom", "/stream.json", "/feeds/acme.atom",
        "/feeds/acme.json", "/metrics", "/healthz", "/api/refresh/status", "/app.js", "/app.css", "/nowhere",
    ]

    @Test("A Host that does not name the server (DNS rebinding) gets 421 and no data on every route; its own names get answers")
    func foreignHost() async throws {
        let api = OrgsAPI(["acme": 3])
        let folder = try TemporaryFolder("feedagg-serve-host")
        defer { folder.remove() }
        try await api.serve { base in
            let config = try folder.write("feeds.yaml", Self.yaml(["acme"], base: base, settings: []))
            let serve = try await ServeProcess.start(["--config", config.path, "--db", folder.path("s.sqlite")])
            defer { serve.process.kill() }
            let port = serve.base.port ?? 0
            let client = ServeClient()
            try await ServeScheduleTests.eventually("acme stored") {
                let (text, _) = try await client.text(serve.url("/api/items"))
                return text.contains("acme-repo-1")
            }
            for host in ["attacker.example:\(port)", "attacker.example", "localhost.attacker.example:\(port)", "127.0.0.1:1", "evil"] {
                for route in Self.routes {
                    let response = try await client.send(serve.url(route), headers: [("Host", host)])
                    let body = String(decoding: response.body, as: UTF8.self)
                    #expect(response.status == 421, "Host \(host) GET \(route): \(response.status)")
                    #expect(!body.contains("acme") && !body.contains("feedagg_"), "Host \(host) GET \(route) leaked: \(body.prefix(300))")
                }
                let post = try await client.send(serve.url("/api/refresh"), method: "POST", headers: [("Host", host)])
                #expect(post.status == 421, "Host \(host) POST /api/refresh: \(post.status)")
            }
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "[::1]:\(port)"] {
                let response = try await client.send(serve.url("/api/items"), headers: [("Host", host)])
                #expect(response.status == 200, "Host \(host): \(response.status)")
                let link = try #require(nextLink(response) ?? URL(string: "http://\(host.lowercased())/"))
                #expect(link.absoluteString.hasPrefix("http://\(host.lowercased())"), "links stay on the name used: \(link)")
            }
            #expect(api.served.count == 1, "no refused request reached the scheduler: \(api.served.count)")
            _ = try await serve.stop()
        }
    }

    @Test("--public-url: its Host is answered and links use its origin; the same-origin check accepts its Origin")
    func publicURL() async throws {
        let api = OrgsAPI(["acme": 25])
        let folder = try TemporaryFolder("feedagg-serve-public")
        defer { folder.remove() }
        try await api.serve { base in
            let config = try folder.write("feeds.yaml", Self.yaml(["acme"], base: base, settings: ["min_refresh: 0"]))
            let serve = try await ServeProcess.start(
                ["--config", config.path, "--db", folder.path("s.sqlite"), "--public-url", "https://Feeds.Example.NET/"])
            defer { serve.process.kill() }
            let client = ServeClient()
            try await ServeScheduleTests.eventually("acme stored") {
                let (text, _) = try await client.text(serve.url("/api/items"))
                return text.contains("acme-repo-1")
            }
            let response = try await client.send(serve.url("/api/items?limit=5"), headers: [("Host", "feeds.example.net")])
            #expect(response.status == 200)
            let next = try #require(nextLink(response))
            #expect(next.absoluteString.hasPrefix("https://feeds.example.net/api/items?limit=5&after="), "\(next)")
            let atom = try await client.send(serve.url("/stream.atom"), headers: [("Host", "feeds.example.net")])
            #expect(String(decoding: atom.body, as: UTF8.self).contains("href=\"https://feeds.example.net/stream.atom\""))
            let post = try await client.send(
                serve.url("/api/refresh"), method: "POST",
                headers: [("Host", "feeds.example.net"), ("Origin", "https://feeds.example.net"), ("Content-Type", "application/json")],
                asProgram: false)
            #expect(post.status == 202, "\(post.status) \(String(decoding: post.body, as: UTF8.self))")
            let wrong = try await client.send(serve.url("/api/items"), headers: [("Host", "feeds.example.net:8443")])
            #expect(wrong.status == 421, "another port of the public name is not it")
            _ = try await serve.stop()
        }
        let bad = try await TestBinary.runFeedagg(
            ["serve", "--config", folder.path("feeds.yaml"), "--db", folder.path("s.sqlite"), "--listen", "127.0.0.1:0",
             "--public-url", "https://user:pw@feeds.example.net/prefix/"])
        #expect(bad.status == 2 && bad.stderr.contains("--public-url"), "\(bad.summary)")
        #expect(!bad.stderr.contains("pw@"), "no user-info in the message: \(bad.stderr)")
    }

    @Test("Cross-site POSTs are refused (Origin, Sec-Fetch-Site, a simple text/plain request); same-origin and program requests are accepted")
    func crossSitePosts() async throws {
        let api = OrgsAPI(["acme": 3])
        let folder = try TemporaryFolder("feedagg-serve-csrf")
        defer { folder.remove() }
        try await api.serve { base in
            let config = try folder.write("feeds.yaml", Self.yaml(["acme"], base: base, settings: ["min_refresh: 0"]))
            let serve = try await ServeProcess.start(["--config", config.path, "--db", folder.path("s.sqlite")])
            defer { serve.process.kill() }
            let client = ServeClient()
            try await ServeScheduleTests.eventually("the pull at start") { api.served.count == 1 }
            let own = "http://127.0.0.1:\(serve.base.port ?? 0)"
            let refused: [[(String, String)]] = [
                [("Origin", "http://attacker.example"), ("Content-Type", "application/json")],
                [("Origin", "null"), ("X-Feedagg-Client", "x")],
                [("Origin", own + ".attacker.example"), ("Content-Type", "application/json")],
                [("Sec-Fetch-Site", "cross-site"), ("Content-Type", "application/json")],
                [("Sec-Fetch-Site", "same-site"), ("X-Feedagg-Client", "x")],
                [("Origin", own), ("Content-Type", "text/plain")],  // a simple request: a form could send it
                [("Sec-Fetch-Site", "same-origin"), ("Content-Type", "application/x-www-form-urlencoded")],
                [],  // no header at all: a plain form post from a browser without Origin
            ]
            for headers in refused {
                let response = try await client.send(serve.url("/api/refresh"), method: "POST", headers: headers, asProgram: false)
                #expect(response.status == 403, "\(headers): \(response.status)")
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(api.served.count == 1, "no refused POST pulled anything: \(api.served.count)")
            let accepted: [[(String, String)]] = [
                [("Origin", own), ("Content-Type", "application/json")],
                [("Sec-Fetch-Site", "same-origin"), ("Content-Type", "application/json; charset=utf-8")],
                [("Sec-Fetch-Site", "none"), ("X-Feedagg-Client", "x")],
                [("X-Feedagg-Client", "curl")],
            ]
            for headers in accepted {
                let response = try await client.send(serve.url("/api/refresh"), method: "POST", headers: headers, asProgram: false)
                #expect(response.status == 202, "\(headers): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
            }
            _ = try await serve.stop()
        }
    }

    @Test("Refresh storm: 20 refreshes in a row cost the feed's server no pull within min_refresh (429 + Retry-After), and at most one queued pull without it")
    func refreshStorm() async throws {
        let api = OrgsAPI(["acme": 3])
        let folder = try TemporaryFolder("feedagg-serve-storm")
        defer { folder.remove() }
        try await api.serve { base in
            // The default min_refresh (30 s).
            let config = try folder.write("feeds.yaml", Self.yaml(["acme"], base: base, settings: []))
            let serve = try await ServeProcess.start(["--config", config.path, "--db", folder.path("s.sqlite")])
            defer { serve.process.kill() }
            let client = ServeClient()
            try await ServeScheduleTests.eventually("the pull at start") {
                let (text, _) = try await client.text(serve.url("/api/refresh/status"))
                return api.served.count == 1 && text.contains("\"last_result\":\"updated\"")
            }
            for round in 1...20 {
                let response = try await client.send(serve.url("/api/refresh?feed=acme"), method: "POST")
                #expect(response.status == 429, "refresh \(round): \(response.status)")
                let wait = Int(response.headers["Retry-After"] ?? "") ?? 0
                #expect((1...30).contains(wait), "Retry-After \(wait)")
                let body = try jsonObject(String(decoding: response.body, as: UTF8.self))
                let refusals = body["refused"] as? [[String: Any]] ?? []
                #expect(refusals.first?["reason"] as? String == "pulled_recently", "\(body)")
            }
            try await Task.sleep(for: .seconds(1))
            #expect(api.served.count == 1, "20 refreshes cost \(api.served.count - 1) requests")
            _ = try await serve.stop()
        }

        // min_refresh: 0, a pull held at its first page: 20 refreshes meanwhile queue one more pull.
        let held = OrgsAPI(["acme": 3], gatePage: 1)
        try await held.serve { base in
            let config = try folder.write("held.yaml", Self.yaml(["acme"], base: base, settings: ["min_refresh: 0"]))
            let serve = try await ServeProcess.start(["--config", config.path, "--db", folder.path("held.sqlite")])
            defer { serve.process.kill() }
            let client = ServeClient()
            try await ServeScheduleTests.eventually("the pull at start is running") {
                let (text, _) = try await client.text(serve.url("/api/refresh/status"))
                return text.contains("\"pulling\":[\"acme\"]")
            }
            for _ in 1...20 {
                let response = try await client.send(serve.url("/api/refresh?feed=acme"), method: "POST")
                #expect(response.status == 202)
            }
            held.gate.open()
            try await ServeScheduleTests.eventually("the refreshes done") {
                let (text, _) = try await client.text(serve.url("/api/refresh/status"))
                return text.contains("\"done\":true") && text.contains("\"pulling\":[]")
            }
            try await Task.sleep(for: .seconds(1))
            #expect(held.served.count == 2, "the running pull and one more, not \(held.served.count)")
            _ = try await serve.stop()
        }
    }

    @Test("A refresh of a feed backing off after a failure does not pull it (429, backing_off)")
    func refreshDuringBackoff() async throws {
        let api = OrgsAPI(["acme": 3])
        let folder = try TemporaryFolder("feedagg-serve-refresh-backoff")
        defer { folder.remove() }
        try await api.serve { base in
            // ghost answers 404; a minute's min_refresh, unscaled.
            let config = try folder.write("feeds.yaml", Self.yaml(["acme", "ghost"], base: base, settings: ["min_refresh: 1m"]))
            let serve = try await ServeProcess.start(["--config", config.path, "--db", folder.path("s.sqlite")])
            defer { serve.process.kill() }
            let client = ServeClient()
            try await ServeScheduleTests.eventually("ghost failed") {
                let (text, _) = try await client.text(serve.url("/api/refresh/status"))
                return text.contains("\"state\":\"backing_off\"")
            }
            let asked = api.served.filter { $0.org == "ghost" }.count
            let response = try await client.send(serve.url("/api/refresh?feed=ghost"), method: "POST")
            #expect(response.status == 429)
            let body = try jsonObject(String(decoding: response.body, as: UTF8.self))
            #expect((body["refused"] as? [[String: Any]])?.first?["reason"] as? String == "backing_off", "\(body)")
            try await Task.sleep(for: .seconds(1))
            #expect(api.served.filter { $0.org == "ghost" }.count == asked, "no request for ghost")
            _ = try await serve.stop()
        }
    }

    @Test("limit above 500 is a 400; a URL over 4 KiB is a 414; 40 KB of headers are refused")
    func boundedRequests() async throws {
        let folder = try TemporaryFolder("feedagg-serve-bounds")
        defer { folder.remove() }
        let (config, db) = try ServeAccessTests.config(in: folder)
        let serve = try await ServeProcess.start(["--config", config, "--db", db])
        defer { serve.process.kill() }
        let client = ServeClient()
        #expect(try await client.send(serve.url("/api/items?limit=500")).status == 200)
        let over = try await client.send(serve.url("/api/items?limit=501"))
        #expect(over.status == 400 && String(decoding: over.body, as: UTF8.self).contains("from 1 to 500"))
        #expect(try await client.send(serve.url("/stream.atom?limit=10000")).status == 400)
        let long = try await client.send(serve.url("/api/items?feed=" + String(repeating: "a", count: 5000)))
        #expect(long.status == 414, "\(long.status)")
        let big = try? await client.send(serve.url("/healthz"), headers: [("X-Big", String(repeating: "b", count: 40_000))])
        #expect(big == nil || big?.status != 200, "a 40 KB header is refused: \(String(describing: big?.status))")
        #expect(try await client.send(serve.url("/healthz")).status == 200, "and the server still answers")
        _ = try await serve.stop()
    }

    @Test("A token shorter than 16 characters is refused; --print-token makes a 43-character base64url one; 10 wrong tokens a minute from one address, then 429")
    func tokens() async throws {
        let folder = try TemporaryFolder("feedagg-serve-tokens")
        defer { folder.remove() }
        let (config, db) = try ServeAccessTests.config(in: folder)
        let short = try folder.write("short", "a\n")
        chmod(short.path, 0o600)
        let refused = try await TestBinary.runFeedagg(
            ["serve", "--config", config, "--db", db, "--listen", "127.0.0.1:0", "--auth-token-file", short.path])
        #expect(refused.status == 2 && refused.stderr.contains("shorter than 16 characters"), "\(refused.summary)")
        #expect(refused.stderr.contains("feedagg serve --print-token"))

        let printed = try await TestBinary.runFeedagg(["serve", "--print-token"])
        let token = printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(printed.status == 0 && token.count == 43, "\(printed.summary)")
        #expect(token.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" })
        let other = try await TestBinary.runFeedagg(["serve", "--print-token"])
        #expect(other.stdout != printed.stdout, "a new token each time")

        let file = try folder.write("token", token + "\n")
        chmod(file.path, 0o600)
        let serve = try await ServeProcess.start(["--config", config, "--db", db, "--auth-token-file", file.path])
        defer { serve.process.kill() }
        let client = ServeClient()
        #expect(try await client.send(serve.url("/healthz"), headers: [("Authorization", "Bearer \(token)")]).status == 200)
        for attempt in 1...10 {
            let wrong = try await client.send(serve.url("/api/items"), headers: [("Authorization", "Bearer guess-\(attempt)")])
            #expect(wrong.status == 401, "attempt \(attempt): \(wrong.status)")
        }
        let throttled = try await client.send(serve.url("/api/items"), headers: [("Authorization", "Bearer \(token)")])
        #expect(throttled.status == 429, "the 11th attempt in a minute, even with the right token: \(throttled.status)")
        #expect(Int(throttled.headers["Retry-After"] ?? "").map { (1...60).contains($0) } == true)
        let output = try await serve.stop()
        #expect(output.stderr.contains("wrong bearer token from 127.0.0.1"), "\(output.stderr.suffix(2000))")
        #expect(!output.stderr.contains(token) && !output.stderr.contains("guess-"), "no token in the log")
    }
}
