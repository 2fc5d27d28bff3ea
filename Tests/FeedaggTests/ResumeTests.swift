import CurlHTTP
import FeedCore
import FeedStore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

private func pages(_ api: VersionedAPI, _ path: String) -> [String] {
    api.requests.filter { $0.path == path }.map { VersionedAPI.query($0)["page"] ?? "1" }
}

/// The requests for page 1 of `path` that carried `If-None-Match` (the resumed walk's head check).
private func conditionalFirstPages(_ api: VersionedAPI, _ path: String) -> Int {
    api.requests.filter { ($0.path == path) && (VersionedAPI.query($0)["page"] ?? "1") == "1" && $0.header("If-None-Match") != nil }
        .count
}

@Suite("Resume: a pull stopped by a rate limit or a crash continues from the page where it stopped")
struct ResumeTests {
    @Test("rate limited on page 3 of 5: the 20 items before are saved; the next pull asks for pages 3–5, then page 1 with its validator (304)")
    func resumeAfterRateLimit() async throws {
        let (api, server, folder) = try await scene([
            "/orgs/big/repos": VersionedAPI.records(1...50),
            "/orgs/small/repos": VersionedAPI.records(101...105),
        ])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write(
            "feeds.yaml",
            "settings:\n  rate_limit_wait: 1\n"
                + feedsYAML(
                    reposFeed("big", org: "big", base: server.baseURL, perPage: 10),
                    reposFeed("small", org: "small", base: server.baseURL)))
        // A first, complete pull stores every item.
        let first = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q"])
        #expect(first.status == 0, "\(first.summary)")
        let before = try showAll(config, db: db)
        #expect(before.count == 55)

        // Every repository changes; page 3 of `big` is rate limited for an hour.
        api.edit("/orgs/big/repos") { records in
            for index in records.indices { records[index].name += "-v2" }
        }
        let reset = Int(Date().timeIntervalSince1970) + 3600
        api.fault("/orgs/big/repos", page: 3, primaryLimit(reset: reset))
        api.resetLog()
        let limited = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q"])
        #expect(limited.status == 3, "partial failure: \(limited.summary)")
        let until = ISO8601.string(from: Date(timeIntervalSince1970: Double(reset)))
        let host = server.baseURL.replacingOccurrences(of: "http://", with: "")
        #expect(
            limited.stderr.split(separator: "\n").map(String.init) == [
                "✗ feed 'big': GET \(server.baseURL)/orgs/big/repos?per_page=10&page=3 (page 3): rate limited by \(host) "
                    + "until \(until), longer than feedagg waits (rate_limit_wait = 1 s): pull again after that time "
                    + "(the 20 items fetched before the failure are saved; the next pull resumes at page 3)"
            ], "\(limited.summary)")
        // Page 1, then pages 2…5 fanned out; the rate limit stops the host, so pages 4–5 may or may
        // not have been sent before the 403 arrived, but page 3 was asked once and never again.
        let asked = pages(api, "/orgs/big/repos")
        #expect(asked.filter { $0 == "3" }.count == 1, "\(asked)")
        #expect(asked.first == "1")
        // Nothing stored is lost: 55 items, pages 1–2 of `big` already in their new version.
        let during = try showAll(config, db: db)
        #expect(during.count == 55)
        #expect(during.filter { $0.item.title.hasSuffix("-v2") }.count == 20)
        let feeds = try await TestBinary.runFeedagg(
            ["feeds", "--config", config.path, "--db", db.path, "--format", "json"])
        let listed = try #require(
            (try JSONSerialization.jsonObject(with: feeds.standardOutput) as? [String: Any])?["feeds"] as? [[String: Any]])
        #expect(listed.first { $0["name"] as? String == "big" }?["resumes_at_page"] as? Int == 3, "\(feeds.summary)")
        #expect(listed.first { $0["name"] as? String == "small" }?["resumes_at_page"] is NSNull)

        // The limit is over: the next pull of `big` starts at page 3.
        api.fault("/orgs/big/repos", page: 3, nil)
        api.resetLog()
        let resumed = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path])
        #expect(resumed.status == 0, "\(resumed.summary)")
        // Pages 3–5, then page 1 once more with the validator it had in the interrupted pull: it
        // did not move (304), so nothing is walked again.
        #expect(pages(api, "/orgs/big/repos").sorted() == ["1", "3", "4", "5"])
        #expect(conditionalFirstPages(api, "/orgs/big/repos") == 1)
        #expect(
            resumed.stderr.contains(
                "✓ big (github.repos): 30 items (0 new, 30 updated), 3 pages, 4 requests"),
            "\(resumed.summary)")
        #expect(!resumed.stderr.contains("walked again"), "\(resumed.summary)")
        #expect(resumed.stderr.contains("resumed at page 3, where the last pull stopped"), "\(resumed.summary)")
        let after = try showAll(config, db: db)
        #expect(after.count == 55)
        #expect(after.filter { $0.feed == "big" }.allSatisfy { $0.item.title.hasSuffix("-v2") })
        // Complete across the two pulls: nothing is marked missing, and the feed is settled.
        let store = try FeedStore.open(path: db.path)
        let summary = try #require(try store.feedSummaries().first { $0.name == "big" })
        #expect(summary.missingCount == 0)
        #expect(summary.lastError == nil)
        #expect(summary.pageCount == 5)
        #expect(try store.checkpoint(feed: "big") == nil)
        try store.close()

        // And the pull after that is the usual incremental one: page 1 unchanged → one request.
        api.resetLog()
        let settled = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q"])
        #expect(settled.status == 0)
        #expect(pages(api, "/orgs/big/repos") == ["1"])
        try await server.shutdown()
    }

    @Test("a repository added at the head while a pull was interrupted is not missed: the resumed pull walks the head again")
    func headMovedDuringInterruption() async throws {
        let (api, server, folder) = try await scene(["/orgs/big/repos": VersionedAPI.records(1...50)])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write(
            "feeds.yaml",
            "settings:\n  rate_limit_wait: 1\n" + feedsYAML(reposFeed("big", org: "big", base: server.baseURL, perPage: 10)))
        // A first pull stopped by a rate limit on page 3: pages 1–2 are staged.
        api.fault("/orgs/big/repos", page: 3, primaryLimit(reset: Int(Date().timeIntervalSince1970) + 3600))
        let limited = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q"])
        #expect(limited.status == 3 || limited.status == 4, "\(limited.summary)")
        #expect(limited.stderr.contains("the next pull resumes at page 3"), "\(limited.summary)")

        // Meanwhile a repository is created: it heads the listing, and every item moves down one
        // place, so the resumed pages 3… start one item later and the new one is on page 1 only.
        api.edit("/orgs/big/repos") { records in
            records.insert(VersionedAPI.Record(id: 999, name: "fresh", updated: 1_800_000_000), at: 0)
        }
        api.fault("/orgs/big/repos", page: 3, nil)
        api.resetLog()
        let resumed = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path])
        #expect(resumed.status == 0, "\(resumed.summary)")
        #expect(resumed.stderr.contains("resumed at page 3, where the last pull stopped"), "\(resumed.summary)")
        // Pages 3–6 (the listing grew to 51 items), then page 1 with its old validator (changed: 200),
        // then page 2, whose items are all held already: the re-walk ends there.
        #expect(pages(api, "/orgs/big/repos").sorted() == ["1", "2", "3", "4", "5", "6"], "\(api.requests.map(\.target))")
        #expect(conditionalFirstPages(api, "/orgs/big/repos") == 1)
        #expect(resumed.stderr.contains("page 1 changed since the interrupted pull: 2 pages from the head walked again"), "\(resumed.summary)")
        let stored = Set(try showAll(config, db: db).map(\.item.id))
        #expect(stored == Set(((1...50).map { "github.repos:\($0)" }) + ["github.repos:999"]))
        let store = try FeedStore.open(path: db.path)
        let summary = try #require(try store.feedSummaries().first { $0.name == "big" })
        #expect(summary.itemCount == 51)
        #expect(summary.missingCount == 0)
        #expect(summary.pageCount == 6, "the listing's pages, the re-walked ones not counted twice")
        try store.close()
        try await server.shutdown()
    }

    @Test("a pagination contradiction is not resumed: the next pull starts again at page 1")
    func inconsistencyRestarts() async throws {
        let (api, server, folder) = try await scene(["/orgs/big/repos": VersionedAPI.records(1...30)])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write("feeds.yaml", feedsYAML(reposFeed("big", org: "big", base: server.baseURL)))
        // Page 2 comes back empty although page 1 announced 3 pages.
        api.fault(
            "/orgs/big/repos", page: 2,
            LoopbackResponse(status: 200, headers: [("Content-Type", "application/json")], text: "[]"))
        let broken = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q"])
        #expect(broken.status == 4, "\(broken.summary)")
        #expect(broken.stderr.contains("inconsistent pagination: page 2 is empty, but page 1 announced 3 pages"))
        let store = try FeedStore.open(path: db.path)
        #expect(try store.checkpoint(feed: "big") == nil)
        try store.close()
        #expect(try showAll(config, db: db).count == 10, "page 1's items are kept")

        api.fault("/orgs/big/repos", page: 2, nil)
        api.resetLog()
        let again = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q"])
        #expect(again.status == 0, "\(again.summary)")
        #expect(pages(api, "/orgs/big/repos").sorted() == ["1", "2", "3"])
        #expect(try showAll(config, db: db).count == 30)
        try await server.shutdown()
    }

    @Test("--full never resumes: it discards the checkpoint and walks from page 1")
    func fullRestarts() async throws {
        let (api, server, folder) = try await scene(["/orgs/big/repos": VersionedAPI.records(1...30)])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write(
            "feeds.yaml", "settings:\n  rate_limit_wait: 1\n" + feedsYAML(reposFeed("big", org: "big", base: server.baseURL)))
        api.fault("/orgs/big/repos", page: 3, primaryLimit(reset: Int(Date().timeIntervalSince1970) + 3600))
        let limited = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q"])
        #expect(limited.status == 4, "\(limited.summary)")
        api.fault("/orgs/big/repos", page: 3, nil)
        api.resetLog()
        let full = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q", "--full"])
        #expect(full.status == 0, "\(full.summary)")
        #expect(pages(api, "/orgs/big/repos").sorted() == ["1", "2", "3"])
        #expect(try showAll(config, db: db).count == 30)
        try await server.shutdown()
    }

    @Test("a checkpoint whose feed changed (another org, another page size) is discarded, with what it staged")
    func changedFeedRestarts() async throws {
        let (api, server, folder) = try await scene([
            "/orgs/big/repos": VersionedAPI.records(1...30),
            "/orgs/other/repos": VersionedAPI.records(201...215),
        ])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write(
            "feeds.yaml", "settings:\n  rate_limit_wait: 1\n" + feedsYAML(reposFeed("big", org: "big", base: server.baseURL)))
        api.fault("/orgs/big/repos", page: 3, primaryLimit(reset: Int(Date().timeIntervalSince1970) + 3600))
        _ = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q"])
        // The feed now reads another org: the stored checkpoint does not apply.
        _ = try folder.write(
            "feeds.yaml", "settings:\n  rate_limit_wait: 1\n" + feedsYAML(reposFeed("big", org: "other", base: server.baseURL)))
        api.resetLog()
        let pulled = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q"])
        #expect(pulled.status == 0, "\(pulled.summary)")
        #expect(pages(api, "/orgs/other/repos").sorted() == ["1", "2"])
        #expect(api.requests.allSatisfy { $0.path == "/orgs/other/repos" })
        try await server.shutdown()
    }
}

@Suite("Speculation: a remembered page count fetches the first pages before page 1 answers")
struct SpeculationTests {
    @Test("--full with 5 remembered pages: pages 2–5 are asked at once; the items equal a plain walk's")
    func speculatesRememberedPages() async throws {
        let (api, server, folder) = try await scene(["/orgs/big/repos": VersionedAPI.records(1...50)])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write("feeds.yaml", feedsYAML(reposFeed("big", org: "big", base: server.baseURL)))
        let first = try await pull(config, db: db)
        #expect(first.results[0].speculativePages == 0, "nothing remembered yet")
        let plain = try showAll(config, db: db).map(\.item.id)

        api.resetLog()
        let full = try await pull(config, db: db, refresh: .full)
        #expect(full.exitStatus == .success)
        #expect(full.results[0].speculativePages == 4)
        #expect(full.results[0].requests == 5)
        #expect(pages(api, "/orgs/big/repos").sorted() == ["1", "2", "3", "4", "5"])
        #expect(full.results[0].items.map(\.id) == first.results[0].items.map(\.id))
        #expect(try showAll(config, db: db).map(\.item.id) == plain)
        try await server.shutdown()
    }

    @Test("the feed shrank (5 → 3 pages): the extra speculative pages are dropped, not errors; it grew (→ 7): the rest is fetched")
    func speculationAdaptsToTheRealCount() async throws {
        let (api, server, folder) = try await scene(["/orgs/big/repos": VersionedAPI.records(1...50)])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write("feeds.yaml", feedsYAML(reposFeed("big", org: "big", base: server.baseURL)))
        _ = try await pull(config, db: db)

        api.set("/orgs/big/repos", VersionedAPI.records(1...30))
        let shrunk = try await pull(config, db: db, refresh: .full)
        #expect(shrunk.exitStatus == .success, "\(shrunk.results.map { $0.error?.description ?? "ok" })")
        #expect(shrunk.results[0].items.map(\.id) == (1...30).map { "github.repos:\($0)" })
        #expect(shrunk.results[0].pages == 3)

        api.set("/orgs/big/repos", VersionedAPI.records(1...70))
        api.resetLog()
        let grown = try await pull(config, db: db, refresh: .full)
        #expect(grown.exitStatus == .success, "\(grown.results.map { $0.error?.description ?? "ok" })")
        #expect(grown.results[0].items.map(\.id) == (1...70).map { "github.repos:\($0)" })
        #expect(pages(api, "/orgs/big/repos").sorted() == ["1", "2", "3", "4", "5", "6", "7"])
        try await server.shutdown()
    }
}

@Suite("A 304 updates the stored header fields")
struct NotModifiedLinksTests {
    @Test("page 1 unchanged but rel=\"last\" moved (items added at the end): the pull walks on; the next one is 1 request")
    func newLastPageIsWalked() async throws {
        let (api, server, folder) = try await scene(["/orgs/big/repos": VersionedAPI.records(1...30)])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write("feeds.yaml", feedsYAML(reposFeed("big", org: "big", base: server.baseURL)))
        _ = try await pull(config, db: db)
        api.edit("/orgs/big/repos") { $0 += VersionedAPI.records(31...45) }
        api.resetLog()
        let grown = try await pull(config, db: db)
        #expect(grown.exitStatus == .success)
        #expect(grown.results[0].unchanged == false)
        #expect(pages(api, "/orgs/big/repos").sorted() == ["1", "2", "3", "4", "5"])
        #expect(try showAll(config, db: db).count == 45)

        api.resetLog()
        let settled = try await pull(config, db: db)
        #expect(settled.results[0].unchanged)
        #expect(pages(api, "/orgs/big/repos") == ["1"])
        try await server.shutdown()
    }
}

@Suite("Fan-out under concurrency", .enabled(if: BenchServer.isAvailable, benchServerMissing))
struct FanOutConcurrencyTests {
    @Test("five orgs pulled at once (W1's shape) never exceed max_connections_per_host", arguments: [3, 16])
    func perHostLimitAcrossFeeds(_ perHost: Int) async throws {
        let orgs = (1...5).map { BenchServer.Organization("org\($0)", repos: 300) }
        try await withBenchServer(.init(orgs: orgs, latencyMilliseconds: 20)) { server in
            let feeds = (1...5).map {
                "  - name: org\($0)\n    source: github.repos\n    org: org\($0)\n    per_page: 30\n    base_url: \(server.baseURL.absoluteString)"
            }
            let report = try await pullQuietly(
                "settings:\n  max_connections_per_host: \(perHost)\nfeeds:\n" + feeds.joined(separator: "\n"))
            #expect(report.exitStatus == .success)
            #expect(report.results.map(\.itemCount) == [300, 300, 300, 300, 300])
            let stats = try await server.stats()
            #expect(stats.requests == 50)
            #expect(stats.maxInFlight <= perHost, "max_in_flight \(stats.maxInFlight) > \(perHost)")
            #expect(stats.maxInFlight > 1, "nothing ran concurrently")
        }
    }
}

@Suite("A page failing mid fan-out")
struct FanOutFailureTests {
    @Test("page 5 of 10 answers 404: pages 1–4 are kept, 6–10 are not, the other feed completes, the next pull resumes at page 5")
    func failingPageFailsTheFeedCleanly() async throws {
        let (api, server, folder) = try await scene([
            "/orgs/big/repos": VersionedAPI.records(1...100),
            "/orgs/small/repos": VersionedAPI.records(201...205),
        ])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write(
            "feeds.yaml",
            feedsYAML(reposFeed("big", org: "big", base: server.baseURL), reposFeed("small", org: "small", base: server.baseURL)))
        api.fault(
            "/orgs/big/repos", page: 5,
            LoopbackResponse(status: 404, headers: [("Content-Type", "application/json")], text: #"{"message":"Not Found"}"#))
        let failed = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q"])
        #expect(failed.status == 3, "\(failed.summary)")
        #expect(
            failed.stderr == "✗ feed 'big': GET \(server.baseURL)/orgs/big/repos?per_page=10&page=5 (page 5): "
                + "HTTP 404 Not Found: Not Found (the 40 items fetched before the failure are saved; "
                + "the next pull resumes at page 5)\n",
            "\(failed.summary)")
        let big = try showAll(config, db: db, feeds: ["big"]).map(\.item.id)
        #expect(Set(big) == Set((1...40).map { "github.repos:\($0)" }))
        #expect(try showAll(config, db: db, feeds: ["small"]).count == 5)
        #expect(pages(api, "/orgs/big/repos").filter { $0 == "5" }.count == 1, "a 404 is not retried")

        api.fault("/orgs/big/repos", page: 5, nil)
        api.resetLog()
        let resumed = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db.path, "-q"])
        #expect(resumed.status == 0, "\(resumed.summary)")
        // Pages 5–10, and page 1 once more (the head check: unchanged, 304).
        #expect(pages(api, "/orgs/big/repos").sorted() == ["1", "10", "5", "6", "7", "8", "9"])
        #expect(conditionalFirstPages(api, "/orgs/big/repos") == 1)
        #expect(try showAll(config, db: db, feeds: ["big"]).count == 100)
        try await server.shutdown()
    }
}

@Suite("Resume keeps secrets out of the store")
struct ResumeSecretTests {
    @Test("a 500px feed (consumer_key in the query) resumes at page 3 with the key restored from the config, never stored")
    func consumerKeyIsRestoredNotStored() async throws {
        let key = "sekret-consumer-key-4711"
        let limited = Mutex(true)
        let seen = Mutex<[String]>([])
        let server = try await LoopbackHTTPServer.start { request in
            let query = VersionedAPI.query(request)
            let page = Int(query["page"] ?? "1") ?? 1
            seen.withLock { $0.append("\(page):\(query["consumer_key"] ?? "-")") }
            if page == 3, limited.withLock({ $0 }) {
                // Pages 2–4 are fetched concurrently: answer the limit only once page 2 has been
                // asked for (and its answer had a moment to leave), so page 2 is never held back
                // by the pause however slowly a loaded machine admits the requests.
                let deadline = ContinuousClock.now + .seconds(10)
                while !seen.withLock({ $0.contains { $0.hasPrefix("2:") } }), ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                try? await Task.sleep(for: .milliseconds(300))
                return LoopbackResponse(
                    status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", "3600")],
                    text: #"{"error":"Too Many Requests"}"#)
            }
            let photos = (1...10).map { index in
                #"{"id":\#(page * 100 + index),"name":"p\#(page)-\#(index)","created_at":"2024-03-01T00:00:00Z"}"#
            }
            return LoopbackResponse(
                headers: [("Content-Type", "application/json")],
                text: #"{"current_page":\#(page),"total_pages":4,"total_items":40,"photos":[\#(photos.joined(separator: ","))]}"#)
        }
        let folder = try TemporaryFolder("feedagg-resume-secret")
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write(
            "feeds.yaml",
            """
            settings:
              rate_limit_wait: 1
            feeds:
              - name: shots
                source: photos.500px
                feature: editors
                per_page: 10
                consumer_key: ${PX_KEY}
                base_url: \(server.baseURL)
            """)
        var environment = TestBinary.cleanEnvironment
        environment["PX_KEY"] = key
        let first = try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", db.path, "-q"], environment: environment)
        #expect(first.status == 4, "\(first.summary)")
        #expect(first.stderr.contains("(the 20 items fetched before the failure are saved; the next pull resumes at page 3)"))
        #expect(!first.stderr.contains(key))
        // The key is in no file of the store (the resume URLs keep it redacted).
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.url.path) where name.hasPrefix("s.sqlite") {
            let bytes = try Data(contentsOf: folder.url.appendingPathComponent(name))
            #expect(bytes.range(of: Data(key.utf8)) == nil, "\(name) holds the consumer key")
        }

        limited.withLock { $0 = false }
        seen.withLock { $0 = [] }
        let resumed = try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", db.path], environment: environment)
        #expect(resumed.status == 0, "\(resumed.summary)")
        #expect(resumed.stderr.contains("resumed at page 3"), "\(resumed.summary)")
        #expect(!resumed.stderr.contains(key))
        // Pages 3–4, then page 1 once (this API sends no validators: page 1 comes back in full,
        // and since every item on it is stored, the head check ends there).
        #expect(seen.withLock { $0 }.sorted() == ["1:\(key)", "3:\(key)", "4:\(key)"])
        #expect(!resumed.stderr.contains("walked again"), "page 1 did not move: \(resumed.summary)")
        #expect(try showAll(config, db: db).count == 40)
        try await server.shutdown()
    }
}
