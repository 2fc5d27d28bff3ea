import FeedCore
import FeedStore
import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// `feedagg serve` read endpoints, through the real binary on an ephemeral loopback port, over a
// store filled by a real `feedagg pull` from the bench server.

@Suite("serve: /api/items, /api/feeds, feed documents, ETag, gzip", .enabled(if: BenchServer.isAvailable, benchServerMissing))
struct ServeAPITests {
    /// Two feeds of 45 and 30 repos, pulled into `db`; `body` gets the config path and the server.
    /// With `postgres`, the store is a fresh database of the test cluster (`--db postgres://…`).
    static func withPulledStore(
        postgres: Bool = false, _ body: (_ config: String, _ db: String, _ serve: ServeProcess) async throws -> Void
    ) async throws {
        let api = try await BenchServer.start(.init(orgs: [.init("acme", repos: 45), .init("zeta", repos: 30)]))
        defer { api.stop() }
        let folder = try TemporaryFolder("feedagg-serve-api")
        defer { folder.remove() }
        let db = postgres ? try await PostgresCluster.shared().createDatabase("serve").url : folder.path("store.sqlite")
        let config = try folder.write("feeds.yaml", reposYAML([("acme", "acme"), ("zeta", "zeta")], base: api.baseURL))
        let output = try await ServeProcess.afterPull(config: config.path, db: db, body)
        #expect(!output.stderr.contains(folder.url.path), "no path in the log of a clean run: \(output.stderr)")
    }

    @Test(
        "/api/items paged to the end through its Link headers equals `show --format json` paged to the end",
        arguments: ["sqlite", "postgres"])
    func itemsEqualShow(engine: String) async throws {
        try await Self.withPulledStore(postgres: engine == "postgres") { config, db, serve in
            let client = ServeClient()
            var served: [String] = []
            var next: URL? = serve.url("/api/items?limit=7")
            while let url = next, served.count < 50 {
                let (body, response) = try await client.text(url)
                #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
                served.append(body)
                next = nextLink(response)
            }
            var shown: [String] = []
            var arguments = ["show", "--config", config, "--db", db, "--format", "json", "--per-page", "7"]
            while shown.count < 50 {
                let output = try await TestBinary.runFeedagg(arguments)
                try #require(output.status == 0, "\(output.summary)")
                shown.append(output.stdout)
                guard let cursor = try jsonObject(output.stdout)["next_cursor"] as? String,
                    !((try jsonObject(output.stdout)["items"] as? [Any]) ?? []).isEmpty
                else { break }
                arguments = ["show", "--config", config, "--db", db, "--format", "json", "--per-page", "7", "--after", cursor]
            }
            #expect(served.count == 11, "75 items at 7 per page: 11 pages")
            #expect(served == shown)
            let ids = try served.flatMap { try (jsonObject($0)["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }
            #expect(ids.count == 75 && Set(ids).count == 75)
        }
    }

    @Test("feedagg's own `source: http` pages /api/items through its Link headers: every item, once")
    func declaredSourceReadsTheAPI() async throws {
        try await Self.withPulledStore { _, _, serve in
            let folder = try TemporaryFolder("feedagg-serve-http-source")
            defer { folder.remove() }
            let config = try folder.write(
                "feeds.yaml",
                """
                feeds:
                  - name: mirror
                    source: http
                    base_url: \(serve.base.absoluteString)
                    url: "{+base_url}/api/items{?limit}"
                    limit: 7
                    pagination: { style: link }
                    items: "$.items"
                    fields: { id: "$.id", title: "$.title", url: "$.url", updated: "$.updated", author: "$.author.name" }

                """)
            let pull = try await TestBinary.runFeedagg(
                ["pull", "--config", config.path, "--db", folder.path("mirror.sqlite"), "--format", "json", "--per-page", "100"])
            try #require(pull.status == 0, "\(pull.summary)")
            let mirrored = try jsonObject(pull.stdout)
            #expect(mirrored["total_items"] as? Int == 75, "\(pull.stdout.prefix(300))")
            let (served, _) = try await ServeClient().text(serve.url("/api/items?limit=100"))
            let titles = { (page: [String: Any]) in (page["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String } }
            #expect(Set(titles(mirrored)) == Set(titles(try jsonObject(served))))
        }
    }

    @Test("Filters, errors, /api/feeds, /healthz; nothing about the server's files in any answer")
    func endpoints() async throws {
        try await Self.withPulledStore { config, db, serve in
            let client = ServeClient()
            let (health, _) = try await client.text(serve.url("/healthz"))
            #expect(health == "{\"status\":\"ok\"}\n")

            let (zeta, zetaResponse) = try await client.text(serve.url("/api/items?feed=zeta&limit=100"))
            let zetaItems = try jsonObject(zeta)["items"] as? [[String: Any]] ?? []
            #expect(zetaItems.count == 30 && zetaItems.allSatisfy { $0["feed"] as? String == "zeta" })
            #expect(nextLink(zetaResponse) == nil, "one page holds the whole feed: no next link")
            let shown = try await TestBinary.runFeedagg(
                ["show", "--config", config, "--db", db, "--format", "json", "--feed", "zeta", "--per-page", "100"])
            #expect(zeta == shown.stdout)

            let (sourced, _) = try await client.text(serve.url("/api/items?source=github.repos&limit=3"))
            #expect((try jsonObject(sourced)["total_items"] as? Int) == 75)

            for (path, status, message) in [
                ("/api/items?feed=zetta", 404, "no feed named 'zetta'; did you mean 'zeta'?"),
                ("/api/items?source=github.repo", 400, "unknown source type 'github.repo'"),
                ("/api/items?limit=0", 400, "limit must be a number from 1 to 500"),
                ("/api/items?after=garbage", 400, "invalid cursor"),
                ("/api/items?page=2", 400, "page= is not served: follow next_cursor with after=CURSOR"),
                ("/stream.atom?page=3", 400, "page= is not served"),
                ("/feeds/nope.atom", 404, "no feed named 'nope'"),
                ("/feeds/acme.rss", 404, "/feeds/NAME.atom"),
            ] {
                let response = try await client.send(serve.url(path))
                let body = String(decoding: response.body, as: UTF8.self)
                #expect(response.status == status, "\(path): \(response.status) \(body)")
                #expect(body.hasPrefix("{\"error\":\"") && body.contains(message), "\(path): \(body)")
                #expect(!body.contains(db) && !body.contains(config), "\(path) names a file: \(body)")
            }

            let (feeds, _) = try await client.text(serve.url("/api/feeds"))
            let listed = try #require(try jsonObject(feeds)["feeds"] as? [[String: Any]])
            #expect(listed.map { $0["name"] as? String } == ["acme", "zeta"])
            #expect(listed.map { $0["items"] as? Int } == [45, 30])
            #expect(!feeds.contains(config) && !feeds.contains(db), "no file path in /api/feeds: \(feeds)")
            let cli = try await TestBinary.runFeedagg(["feeds", "--config", config, "--db", db, "--format", "json"])
            // The same document less what belongs to the machine: no `config` (the configuration's
            // absolute path), no `plugin_stderr`, and `token` only says whether one is set.
            let local = try #require(try jsonObject(cli.stdout)["feeds"] as? [[String: Any]])
            let expected = local.map { feed -> NSDictionary in
                var feed = feed
                feed["config"] = nil
                feed["plugin_stderr"] = nil
                feed["token"] = !(feed["token"] is NSNull || feed["token"] == nil)
                return feed as NSDictionary
            }
            #expect(listed.map { $0 as NSDictionary } == expected, "\(feeds)\n\(cli.stdout)")
            #expect(!feeds.contains("\"config\"") && !feeds.contains("plugin_stderr"))

            let (page, pageResponse) = try await client.text(serve.url("/"))
            #expect(pageResponse.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(page.contains("<!doctype html>") && page.contains("acme"))
            for path in ["/", "/api/items", "/healthz", "/stream.atom"] {
                let response = try await client.send(serve.url(path))
                let csp = response.headers["Content-Security-Policy"] ?? ""
                #expect(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"), "\(path): \(csp)")
                #expect(csp.contains("frame-ancestors 'none'") && csp.contains("object-src 'none'"), "\(path): \(csp)")
                #expect(response.headers["X-Content-Type-Options"] == "nosniff", "\(path)")
                for (name, value) in response.headers { #expect(!value.contains(db), "\(path): header \(name) names the store") }
            }
        }
    }

    @Test("A stored error that names the store or feeds.yaml (a page that could not be saved) is shown without the paths")
    func storedErrorsWithoutPaths() async throws {
        let api = try await BenchServer.start(.init(orgs: [.init("acme", repos: 5)]))
        defer { api.stop() }
        let folder = try TemporaryFolder("feedagg-serve-paths")
        defer { folder.remove() }
        let db = folder.path("store.sqlite")
        let config = try folder.write("feeds.yaml", reposYAML([("acme", "acme")], base: api.baseURL))
        let pull = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db, "--quiet"])
        try #require(pull.status == 0, "\(pull.summary)")
        // What a pull whose page could not be written leaves in the store.
        let store = try FeedStore.open(path: db)
        guard case .fresh(let ticket) = try store.beginPull(feed: "acme", source: "github.repos", fingerprint: "x", restart: true, config: nil)
        else { throw ServeTestError("acme is claimed") }
        let failure = FeedError(
            feed: "acme", url: nil, page: 2,
            reason: .notSaved("store \(db): save page 2 failed: disk I/O error (while reading \(config.path))"))
        _ = try store.finishPull(
            FeedPull(FeedResult(feed: "acme", source: "github.repos", error: failure)), ticket: ticket, keepResume: false)
        try store.close()

        let cli = try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", db, "--format", "json"])
        #expect(cli.stdout.contains(db), "the command line shows the path to its user: \(cli.stdout)")
        let serve = try await ServeProcess.start(["--config", config.path, "--db", db])
        defer { serve.process.kill() }
        let client = ServeClient()
        let (feeds, _) = try await client.text(serve.url("/api/feeds"))
        #expect(feeds.contains("store the store: save page 2 failed: disk I/O error (while reading feeds.yaml)"), "\(feeds)")
        #expect(!feeds.contains(folder.url.path), "\(feeds)")
        let (page, _) = try await client.text(serve.url("/"))
        #expect(!page.contains(folder.url.path), "\(page)")
        _ = try await serve.stop()
    }

    @Test("/stream.atom and /stream.json, /feeds/NAME.atom|.json: rel=next and next_url walk every entry once")
    func feedDocuments() async throws {
        try await Self.withPulledStore { _, _, serve in
            let client = ServeClient()
            for (path, expected) in [("/stream.atom", 75), ("/feeds/acme.atom", 45), ("/feeds/zeta.atom", 30)] {
                var ids: [String] = []
                var next: URL? = serve.url(path + "?limit=10")
                while let url = next, ids.count < 200 {
                    let (body, response) = try await client.text(url)
                    #expect(response.headers["Content-Type"] == "application/atom+xml; charset=utf-8")
                    let own = url.absoluteString.replacingOccurrences(of: "&", with: "&amp;")
                    #expect(body.contains("<link rel=\"self\" type=\"application/atom+xml\" href=\"\(own)\"/>"), "\(body.prefix(600))")
                    ids += body.components(separatedBy: "<entry>\n    <id>").dropFirst().map { String($0.prefix { $0 != "<" }) }
                    next = Self.atomNext(body)
                }
                #expect(ids.count == expected && Set(ids).count == expected, "\(path): \(ids.count) entries")
            }
            for (path, expected) in [("/stream.json", 75), ("/feeds/zeta.json", 30)] {
                var ids: [String] = []
                var next: URL? = serve.url(path + "?limit=10")
                while let url = next, ids.count < 200 {
                    let (body, response) = try await client.text(url)
                    #expect(response.headers["Content-Type"] == "application/feed+json; charset=utf-8")
                    let document = try jsonObject(body)
                    #expect(document["version"] as? String == "https://jsonfeed.org/version/1.1")
                    #expect(document["feed_url"] as? String == url.absoluteString)
                    ids += (document["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                    next = (document["next_url"] as? String).flatMap(URL.init(string:))
                }
                #expect(ids.count == expected && Set(ids).count == expected, "\(path): \(ids.count) items")
            }
        }
    }

    @Test("feedparser (PyPI) reads a served Atom page with its self, alternate and next links: not bozo, every entry")
    func feedparserReadsServedAtom() async throws {
        try await Self.withPulledStore { _, _, serve in
            let (atom, _) = try await ServeClient().text(serve.url("/stream.atom?limit=25"))
            let python = RepositoryPaths.root.appendingPathComponent(".build/venv/bin/python")
            try #require(
                FileManager.default.isExecutableFile(atPath: python.path),
                "\(python.path) is missing: run `make pytools` (or `make test`)")
            let folder = try TemporaryFolder("feedagg-serve-feedparser")
            defer { folder.remove() }
            let file = try folder.write("stream.atom", atom)
            let script = RepositoryPaths.root.appendingPathComponent("Scripts/feedparser-dump.py").path
            let output = try await ChildProcess.run(python, arguments: [script, file.path], timeout: .seconds(120))
            try #require(output.status == 0, "\(output.summary)")
            let report = try jsonObject(output.stdout)
            #expect(report["bozo"] as? Bool == false, "\(report["bozo_exception"] ?? "")")
            let entries = report["entries"] as? [[String: Any]] ?? []
            #expect(entries.count == 25)
            #expect(entries.allSatisfy { ($0["id"] as? String)?.hasPrefix("tag:feedagg,2026:") == true && $0["link"] is String && $0["updated"] is String })
        }
    }

    /// The `href` of `<link rel="next" …>`, XML-unescaped.
    static func atomNext(_ body: String) -> URL? {
        guard let range = body.range(of: "<link rel=\"next\" type=\"application/atom+xml\" href=\"") else { return nil }
        let href = body[range.upperBound...].prefix { $0 != "\"" }
        return URL(string: href.replacingOccurrences(of: "&amp;", with: "&"))
    }

    @Test("Every endpoint: an ETag, 304 for If-None-Match, gzip when asked (same ETag family, same content)")
    func entityTagsAndGzip() async throws {
        try await Self.withPulledStore { _, _, serve in
            let client = ServeClient()
            for path in [
                "/", "/api/items", "/api/items?limit=3&feed=acme", "/api/feeds", "/healthz", "/stream.atom", "/stream.json",
                "/feeds/acme.atom", "/feeds/zeta.json", "/api/refresh/status", "/api/items?feed=nope", "/no/such/path",
            ] {
                let first = try await client.send(serve.url(path))
                let tag = try #require(first.headers["ETag"], "\(path): no ETag")
                #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""), "\(path): \(tag)")
                let again = try await client.send(serve.url(path), headers: [("If-None-Match", tag)])
                if (200..<300).contains(first.status) {
                    #expect(again.status == 304 && again.body.isEmpty, "\(path): \(again.status)")
                    #expect(again.headers["ETag"] == tag)
                    let weak = try await client.send(serve.url(path), headers: [("If-None-Match", "\"other\", W/\(tag)")])
                    #expect(weak.status == 304, "\(path): a weak tag in a list matches")
                } else {
                    #expect(again.status == first.status, "\(path): an error is never a 304")
                }
                let gzipped = try await client.send(serve.url(path), headers: [("Accept-Encoding", "gzip")])
                if first.body.count >= 256 {
                    #expect(gzipped.headers["Content-Encoding"] == "gzip", "\(path)")
                    #expect(gzipped.body.prefix(2) == Data([0x1f, 0x8b]), "\(path): not a gzip stream")
                    #expect(gzipped.headers["ETag"] == String(tag.dropLast()) + "-gzip\"", "\(path)")
                    let revalidated = try await client.send(
                        serve.url(path), headers: [("Accept-Encoding", "gzip"), ("If-None-Match", gzipped.headers["ETag"] ?? "")])
                    #expect(revalidated.status == (first.status == 200 ? 304 : first.status), "\(path)")
                } else {
                    #expect(gzipped.headers["Content-Encoding"] == nil, "\(path): a small body is sent as is")
                }
                let head = try await client.send(serve.url(path), method: "HEAD")
                #expect(head.status == first.status && head.headers["ETag"] == tag && head.body.isEmpty, "HEAD \(path)")
                #expect(head.headers["Content-Length"] == String(first.body.count), "HEAD \(path): the GET's length")
                if first.status == 200 {
                    let cached = try await client.send(serve.url(path), method: "HEAD", headers: [("If-None-Match", tag)])
                    #expect(cached.status == 304, "HEAD \(path) with If-None-Match")
                }
                let refused = try await client.send(serve.url(path), headers: [("Accept-Encoding", "gzip;q=0, identity")])
                #expect(refused.headers["Content-Encoding"] == nil, "\(path): gzip;q=0 refuses gzip")
                #expect(first.headers["Vary"] == "Accept-Encoding", "\(path)")
            }
            // /metrics changes with every request (it counts them): a new ETag each time, never a stale 304.
            let metrics = try await client.send(serve.url("/metrics"))
            let tag = try #require(metrics.headers["ETag"])
            let again = try await client.send(serve.url("/metrics"), headers: [("If-None-Match", tag)])
            #expect(again.status == 200 && again.headers["ETag"] != tag)
            // libcurl decoding the gzip body gives back exactly the plain one.
            let decoding = CurlClientDecoding()
            let plain = try await client.send(serve.url("/api/items?limit=50"))
            let decoded = try await decoding.send(serve.url("/api/items?limit=50"))
            #expect(decoded.body == plain.body && plain.body.count > 1000)
        }
    }
}
