import FeedConfig
import FeedaggKit
import FeedaggTesting
import FeedSearch
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// `feedagg serve`'s search (`q=`), saved views (`/views/NAME.atom|.json`, `view=`), tag labels and
// filter rules, through the real binary over a store of SearchCorpus pulled by `feedagg pull`.

@Suite("serve: search, saved views, filter rules")
struct ServeSearchTests {
    static let top = """
        settings:
          filters:
            - drop: "knitting"
            - {tag: security, when: "security OR cve"}
        views:
          - name: rust
            query: "rust -kernel"
          - {name: new-swift, query: "swift newer:1000w"}

        """

    /// The corpus pulled into a store of `engine`, served with ``top``'s rules and views; `body`
    /// gets the config path, the store and the server.
    static func withServedCorpus(
        _ engine: String = "sqlite", top: String = ServeSearchTests.top,
        _ body: (_ config: String, _ db: String, _ serve: ServeProcess) async throws -> Void
    ) async throws {
        let api = try await SearchCorpus.API.start()
        let folder = try TemporaryFolder("feedagg-serve-search")
        defer { folder.remove() }
        do {
            let db = engine == "postgres" ? try await PostgresCluster.shared().createDatabase("serve").url : folder.path("store.sqlite")
            let config = try folder.write("feeds.yaml", SearchCorpus.feedsYAML(base: api.baseURL, top: top))
            try await ServeProcess.afterPull(config: config.path, db: db, body)
        } catch {
            await api.stop()
            throw error
        }
        await api.stop()
    }

    /// Every body of `path` followed through its `Link: rel="next"` headers (at most 50).
    static func pagedBodies(_ serve: ServeProcess, _ path: String) async throws -> [String] {
        let client = ServeClient()
        var bodies: [String] = []
        var next: URL? = serve.url(path)
        while let url = next, bodies.count < 50 {
            let (body, response) = try await client.text(url)
            bodies.append(body)
            next = nextLink(response)
        }
        return bodies
    }

    /// Every page of `feedagg show ARGUMENTS --format json`, followed through next_cursor.
    static func shownBodies(_ config: String, _ db: String, _ arguments: [String]) async throws -> [String] {
        var bodies: [String] = []
        var extra: [String] = []
        while bodies.count < 50 {
            let output = try await TestBinary.runFeedagg(["show", "--config", config, "--db", db, "--format", "json"] + arguments + extra)
            try #require(output.status == 0, "\(output.summary)")
            bodies.append(output.stdout)
            let page = try jsonObject(output.stdout)
            guard let cursor = page["next_cursor"] as? String, !((page["items"] as? [Any]) ?? []).isEmpty else { break }
            extra = ["--after", cursor]
        }
        return bodies
    }

    static func titles(_ body: String) throws -> [String] {
        (try jsonObject(body)["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }

    @Test(
        "/api/items?q= paged to the end through its Link headers equals `show --query` paged to the end; so does view=",
        arguments: ["sqlite", "postgres"])
    func itemsEqualShow(engine: String) async throws {
        try await Self.withServedCorpus(engine) { config, db, serve in
            let query = "swift OR rust -\"swift 6\""
            let encoded = try #require(query.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let served = try await Self.pagedBodies(serve, "/api/items?limit=2&q=\(encoded)")
            let shown = try await Self.shownBodies(config, db, ["--per-page", "2", "--query", query])
            #expect(served == shown)
            let titles = try served.flatMap(Self.titles)
            let rules = try FeedSearchRules.of(Self.top)
            #expect(titles == SearchCorpus.expected(try SearchQuery(parsing: query), rules: rules).map(\.title))
            #expect(titles.count == 7 && served.count == 4, "7 matches, 2 a page: 4 pages")

            let view = try await Self.pagedBodies(serve, "/api/items?limit=2&view=rust")
            #expect(view == (try await Self.shownBodies(config, db, ["--per-page", "2", "--view", "rust"])))
            #expect(try view.flatMap(Self.titles) == ["Rust beta channel notes", "Weekly links", "Rust 2.0 roadmap"])
        }
    }

    @Test("the Link header keeps q (and view, feed, limit); the feed documents' next links too; both paged to the end")
    func linksKeepTheSearch() async throws {
        try await Self.withServedCorpus { _, _, serve in
            let client = ServeClient()
            let (_, response) = try await client.text(serve.url("/api/items?limit=2&feed=news&view=rust&q=roadmap%20OR%20beta%20OR%20links"))
            let next = try #require(nextLink(response)?.absoluteString)
            #expect(
                next.hasPrefix(serve.base.absoluteString + "/api/items?limit=2&feed=news&view=rust&q=roadmap%20OR%20beta%20OR%20links&after="),
                "\(next)")

            // The page's search box sends a form: `+` is a space there, as in a URL typed by hand.
            let plus = try await client.text(serve.url("/api/items?q=swift+OR+rust")).0
            #expect(plus == (try await client.text(serve.url("/api/items?q=swift%20OR%20rust")).0))
            #expect(try Self.titles(plus).count == 8)

            let expected = SearchCorpus.expected(try SearchQuery(parsing: "swift"), rules: try FeedSearchRules.of(Self.top)).map(\.title)
            var atomTitles: [String] = []
            var url: URL? = serve.url("/stream.atom?limit=2&q=swift")
            while let page = url, atomTitles.count < 50 {
                let (atom, _) = try await client.text(page)
                #expect(atom.contains("<link rel=\"self\" type=\"application/atom+xml\" href=\"\(serve.base.absoluteString)/stream.atom?limit=2&amp;q=swift"), "\(atom)")
                #expect(atom.contains("<title type=\"text\">feedagg: news, blog, search: swift</title>"), "\(atom)")
                atomTitles += atom.components(separatedBy: "<entry>").dropFirst().compactMap {
                    $0.components(separatedBy: "<title type=\"text\">").dropFirst().first?.components(separatedBy: "</title>").first
                }
                url = atom.components(separatedBy: "<link rel=\"next\" type=\"application/atom+xml\" href=\"").dropFirst().first
                    .flatMap { $0.components(separatedBy: "\"").first }.map { $0.replacingOccurrences(of: "&amp;", with: "&") }
                    .flatMap(URL.init(string:))
            }
            #expect(atomTitles == expected)

            var feedTitles: [String] = []
            var jsonURL: URL? = serve.url("/stream.json?limit=2&q=swift")
            while let page = jsonURL, feedTitles.count < 50 {
                let document = try jsonObject(try await client.text(page).0)
                feedTitles += (document["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
                jsonURL = (document["next_url"] as? String).flatMap(URL.init(string:))
            }
            #expect(feedTitles == expected)
        }
    }

    @Test("a malformed q is a 400 with the parse error, its column and caret, on every endpoint; the page shows it")
    func malformedQuery() async throws {
        try await Self.withServedCorpus { _, _, serve in
            let client = ServeClient()
            let message = "query:1:7: error: '(' is never closed\n    swift (rust\n          ^"
            for path in ["/api/items", "/stream.atom", "/stream.json", "/views/rust.atom", "/feeds/news.json"] {
                let response = try await client.send(serve.url(path + "?q=swift%20(rust"))
                #expect(response.status == 400, "\(path)")
                let body = String(decoding: response.body, as: UTF8.self)
                #expect(try jsonObject(body)["error"] as? String == message, "\(path): \(body)")
            }
            let page = try await client.send(serve.url("/?q=swift%20(%3Cb%3Erust"), headers: [("Accept", "text/html")])
            #expect(page.status == 400)
            #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("query:1:7: error: &#39;(&#39; is never closed") || html.contains("query:1:7: error: &#x27;(&#x27; is never closed"), "\(html)")
            #expect(html.contains("value=\"swift (&lt;b&gt;rust\"") && !html.contains("<b>rust"), "escaped: \(html)")
        }
    }

    @Test("saved views: /views/NAME.atom and .json, 404 for an unknown one; listed in /api/feeds and on the page")
    func views() async throws {
        try await Self.withServedCorpus { config, db, serve in
            let client = ServeClient()
            let shown = try Self.titles(try await Self.shownBodies(config, db, ["--view", "rust", "--per-page", "50"])[0])
            let (json, response) = try await client.text(serve.url("/views/rust.json"))
            #expect(response.headers["Content-Type"] == "application/feed+json; charset=utf-8")
            let document = try jsonObject(json)
            #expect((document["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String } == shown)
            #expect(document["title"] as? String == "feedagg: view rust")
            #expect(document["feed_url"] as? String == serve.base.absoluteString + "/views/rust.json")
            #expect(document["home_page_url"] as? String == serve.base.absoluteString + "/?view=rust")
            let (atom, _) = try await client.text(serve.url("/views/rust.atom?limit=2"))
            #expect(atom.components(separatedBy: "<entry>").count - 1 == 2)
            #expect(atom.contains("<link rel=\"next\" type=\"application/atom+xml\" href=\"\(serve.base.absoluteString)/views/rust.atom?limit=2&amp;after="), "\(atom)")
            #expect(atom.contains("<id>tag:feedagg,2026:stream/news,blog?view=rust</id>"), "\(atom)")

            for path in ["/views/rusty.atom", "/views/rust.xml", "/api/items?view=rusty"] {
                let missing = try await client.send(serve.url(path))
                #expect(missing.status == 404, "\(path)")
            }
            let unknown = try await client.send(serve.url("/views/rusty.json"))
            #expect(try jsonObject(String(decoding: unknown.body, as: UTF8.self))["error"] as? String == "no view named 'rusty'; did you mean 'rust'?; views: rust, new-swift")

            let feeds = try jsonObject(try await client.text(serve.url("/api/feeds")).0)
            let views = feeds["views"] as? [[String: Any]] ?? []
            #expect(views.map { $0["name"] as? String } == ["rust", "new-swift"])
            #expect(views.first?["query"] as? String == "rust -kernel")
            #expect(views.first?["atom"] as? String == serve.base.absoluteString + "/views/rust.atom")
            #expect(views.first?["json"] as? String == serve.base.absoluteString + "/views/rust.json")
            #expect((feeds["feeds"] as? [Any])?.count == 2)

            let (page, _) = try await client.text(serve.url("/"), headers: [("Accept", "text/html")])
            #expect(page.contains("<a href=\"/?view=rust\" title=\"rust -kernel\">rust</a>"), "\(page)")
            #expect(page.contains("href=\"/views/new-swift.atom\""))
            let (viewPage, _) = try await client.text(serve.url("/?view=rust"), headers: [("Accept", "text/html")])
            #expect(viewPage.components(separatedBy: "<li class=\"card").count - 1 == shown.count)
        }
    }

    @Test("filter rules apply to every endpoint; tag labels in api items, Atom categories and JSON Feed tags")
    func rulesAndLabels() async throws {
        try await Self.withServedCorpus { config, db, serve in
            let client = ServeClient()
            let served = try await Self.pagedBodies(serve, "/api/items?limit=5")
            #expect(served == (try await Self.shownBodies(config, db, ["--per-page", "5"])))
            let titles = try served.flatMap(Self.titles)
            #expect(titles.count == 15 && !titles.contains("Knitting patterns for winter"), "the drop rule hides it: \(titles)")

            let (items, _) = try await client.text(serve.url("/api/items?q=security&limit=50"))
            let tags = (try jsonObject(items)["items"] as? [[String: Any]] ?? []).map { $0["tags"] as? [String] ?? [] }
            #expect(tags == [["security"], ["security"]])
            let (atom, _) = try await client.text(serve.url("/stream.atom?q=cve"))
            #expect(atom.contains("<category term=\"news\"/>\n    <category term=\"security\"/>"), "\(atom)")
            let feed = try jsonObject(try await client.text(serve.url("/feeds/blog.json?q=security")).0)
            #expect((feed["items"] as? [[String: Any]])?.first?["tags"] as? [String] == ["blog", "security"])
            let (knitting, _) = try await client.text(serve.url("/feeds/blog.json?q=knitting"))
            #expect((try jsonObject(knitting)["items"] as? [Any])?.isEmpty == true, "the feed document applies the rules too")
        }
    }

    @Test("kept first pages: q is part of the key; a search or view with an age is never kept")
    func keptPages() async throws {
        try await Self.withServedCorpus { _, _, serve in
            let client = ServeClient()
            let kept = "feedagg_http_kept_pages_total"
            let swift = try await client.send(serve.url("/api/items?q=swift"))
            let rust = try await client.send(serve.url("/api/items?q=rust"))
            #expect(swift.body != rust.body, "a kept page of one search is not another's")
            var before = try await ServeKeptPagesTests.counter(kept, at: serve)
            _ = try await client.send(serve.url("/api/items?q=swift"))
            #expect(try await ServeKeptPagesTests.counter(kept, at: serve) == before + 1)
            before = try await ServeKeptPagesTests.counter(kept, at: serve)
            for path in ["/api/items?q=newer:1000w", "/api/items?q=newer:1000w", "/views/new-swift.json", "/views/new-swift.json"] {
                let response = try await client.send(serve.url(path))
                #expect(response.status == 200, "\(path)")
            }
            #expect(try await ServeKeptPagesTests.counter(kept, at: serve) == before, "ages count from now: never kept")
        }
    }

    @Test("SIGHUP with new rules: the next read applies them, with no pull and no request to the API")
    func rulesReload() async throws {
        let api = try await SearchCorpus.API.start()
        let folder = try TemporaryFolder("feedagg-serve-rules")
        defer { folder.remove() }
        do {
            let db = folder.path("store.sqlite")
            let config = try folder.write("feeds.yaml", SearchCorpus.feedsYAML(base: api.baseURL, top: "settings:\n  interval: 1d\n"))
            let pull = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db, "--quiet"])
            try #require(pull.status == 0, "\(pull.summary)")
            let serve = try await ServeProcess.start(["--config", config.path, "--db", db])
            let client = ServeClient()
            let before = try jsonObject(try await client.text(serve.url("/api/items")).0)["total_items"] as? Int
            #expect(before == 16)
            let requests = api.requests
            _ = try folder.write(
                "feeds.yaml",
                SearchCorpus.feedsYAML(base: api.baseURL, top: "settings:\n  interval: 1d\n  filters:\n    - keep: \"author:ken\"\n"))
            serve.process.send(SIGHUP)
            var after: Int?
            for _ in 0..<100 {
                after = try jsonObject(try await client.text(serve.url("/api/items")).0)["total_items"] as? Int
                if after == 3 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(after == 3, "the reloaded rules apply at the next read")
            #expect(api.requests == requests, "no request to the API for it")
            let output = try await serve.stop()
            #expect(output.status == 0, "\(output.summary)")
        } catch {
            await api.stop()
            throw error
        }
        await api.stop()
    }
}

/// The filter rules of a feeds.yaml `top` (the corpus's feeds after it), as the loader reads them.
enum FeedSearchRules {
    static func of(_ top: String) throws -> FilterRules {
        try FeedsLoader.parse(
            text: SearchCorpus.feedsYAML(base: "http://127.0.0.1:1", top: top), path: "feeds.yaml",
            sources: SourceRegistry.builtIn.descriptors, environment: [:]
        ).filters
    }
}
