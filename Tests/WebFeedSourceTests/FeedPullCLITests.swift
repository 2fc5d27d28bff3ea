import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

/// A loopback site serving the fixtures, a paged Atom archive, a feed that changes, and hostile bodies.
final class FeedSite: Sendable {
    let requests = Mutex<[LoopbackRequest]>([])
    /// Bumped between pulls by the tests: `/changing.xml` lists entries `generation…generation+2`.
    let generation = Mutex(0)

    static func atomPage(_ page: Int, of pages: Int, base: String) -> String {
        let next = page < pages ? #"<link rel="next" href="paged.atom?page=\#(page + 1)"/>"# : ""
        let entries = (0..<3).map { index -> String in
            let number = (page - 1) * 3 + index
            return """
                <entry><id>urn:paged:\(number)</id><title>Paged \(number)</title>
                <link href="posts/\(number)"/><updated>2025-11-\(String(format: "%02d", 20 - number))T10:00:00Z</updated></entry>
                """
        }.joined()
        return #"<feed xmlns="http://www.w3.org/2005/Atom"><title>paged</title>\#(next)\#(entries)</feed>"#
    }

    func handle(_ request: LoopbackRequest) -> LoopbackResponse {
        requests.withLock { $0.append(request) }
        let xml = [("Content-Type", "application/atom+xml")]
        switch request.path {
        case "/releases.atom":
            let etag = "\"releases-v1\""
            if request.header("If-None-Match") == etag { return LoopbackResponse(status: 304, headers: [("ETag", etag)]) }
            let body = (try? FeedFixtures.data("github-releases.atom")) ?? Data()
            return LoopbackResponse(headers: xml + [("ETag", etag)], body: Array(body))
        case "/fixture":
            let file = request.queryValues["file"] ?? ""
            let body = (try? FeedFixtures.data(file)) ?? Data()
            return LoopbackResponse(headers: [("Content-Type", "application/octet-stream")], body: Array(body))
        case "/paged.atom", "/b/paged.atom":
            let page = Int(request.queryValues["page"] ?? "1") ?? 1
            return LoopbackResponse(headers: xml, text: Self.atomPage(page, of: 3, base: ""))
        case "/changing.xml":
            let start = generation.withLock { $0 }
            let items = (start..<start + 3).map { "<item><guid>c-\($0)</guid><title>Change \($0)</title></item>" }.joined()
            return LoopbackResponse(
                headers: [("Content-Type", "application/rss+xml")],
                text: #"<rss version="2.0"><channel><title>c</title>\#(items)</channel></rss>"#)
        case "/login":
            return LoopbackResponse(
                headers: [("Content-Type", "text/html; charset=utf-8")],
                text: "<!DOCTYPE html><html><head><title>Please sign in</title></head><body>form</body></html>")
        case "/huge.xml":
            // 50 MiB: one feed whose body is over the default 16 MiB max_bytes.
            let head = Array(#"<rss version="2.0"><channel><title>huge</title><description>"#.utf8)
            return LoopbackResponse(headers: xml, body: head + [UInt8](repeating: 0x61, count: 50 << 20))
        case "/drip.xml":
            // A feed that never ends within the pull's timeout: 64 bytes every 200 ms of a 10 MiB body.
            return LoopbackResponse(
                headers: xml, body: [UInt8](repeating: 0x20, count: 10 << 20),
                fault: .trickle(bytesPerChunk: 64, interval: .milliseconds(200)))
        default:
            return LoopbackResponse(status: 404, text: "not found")
        }
    }

    /// The targets requested for `path`, in order.
    func targets(_ path: String) -> [String] { requests.withLock { $0.filter { $0.path == path }.map(\.target) } }
    /// The `If-None-Match` values sent for `path`.
    func validators(_ path: String) -> [String?] {
        requests.withLock { $0.filter { $0.path == path }.map { $0.header("If-None-Match") } }
    }
}

/// `source: feed` through the real binary, libcurl and the store, against a loopback site.
@Suite("source: feed end to end through feedagg pull")
struct FeedPullCLITests {
    static func pull(_ yaml: String, in folder: TemporaryFolder, extra: [String] = []) async throws -> ProcessOutput {
        let config = try folder.write("feeds.yaml", yaml)
        return try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", folder.path("store.sqlite"), "--format", "json", "--per-page", "100"]
                + extra, currentDirectory: folder.url, timeout: .seconds(120))
    }

    static func items(_ output: ProcessOutput) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        return try #require(object["items"] as? [[String: Any]], "no items in \(output.stdout.prefix(300))")
    }

    @Test("every fixture pulls through the binary; served as octet-stream, the format comes from the body")
    func fixtures() async throws {
        let site = FeedSite()
        try await LoopbackHTTPServer.withServer(handler: { site.handle($0) }) { server in
            let folder = try TemporaryFolder("feedagg-feed-cli")
            defer { folder.remove() }
            let feeds = FeedFixtures.documents.enumerated().map { index, fixture in
                "  - { name: f\(index), source: feed, url: \"\(server.baseURL)/fixture?file=\(fixture.file)\" }"
            }
            let output = try await Self.pull("feeds:\n" + feeds.joined(separator: "\n") + "\n", in: folder)
            #expect(output.status == 0, "\(output.summary)")
            let items = try Self.items(output)
            var expected = 0
            for (index, fixture) in FeedFixtures.documents.enumerated() {
                let document = try FeedFixtures.parse(fixture.file, url: "\(server.baseURL)/fixture?file=\(fixture.file)")
                let ids = Set(items.compactMap { $0["id"] as? String }.filter { $0.hasPrefix("f\(index):") })
                #expect(ids == Set(document.entries.map { "f\(index):" + $0.stableID }), "\(fixture.file)")
                expected += document.entries.count
            }
            #expect(items.count == expected)
        }
    }

    @Test("the second pull sends the ETag and a 304 keeps the stored items")
    func conditional() async throws {
        let site = FeedSite()
        try await LoopbackHTTPServer.withServer(handler: { site.handle($0) }) { server in
            let folder = try TemporaryFolder("feedagg-feed-cli")
            defer { folder.remove() }
            let yaml = "feeds:\n  - name: releases\n    source: feed\n    url: \(server.baseURL)/releases.atom\n"
            let first = try await Self.pull(yaml, in: folder)
            #expect(first.status == 0, "\(first.summary)")
            let second = try await Self.pull(yaml, in: folder)
            #expect(second.status == 0, "\(second.summary)")
            #expect(site.validators("/releases.atom") == [nil, "\"releases-v1\""])
            let ids = try Self.items(second).compactMap { $0["id"] as? String }
            #expect(ids.count == 3)
            #expect(ids.allSatisfy { $0.hasPrefix("releases:tag:github.com,2008:Repository/147405421/") })
        }
    }

    @Test("Atom rel=next pages are followed (RFC 5005); max_pages bounds the walk")
    func paging() async throws {
        let site = FeedSite()
        try await LoopbackHTTPServer.withServer(handler: { site.handle($0) }) { server in
            let folder = try TemporaryFolder("feedagg-feed-cli")
            defer { folder.remove() }
            let yaml = """
                feeds:
                  - { name: all, source: feed, url: "\(server.baseURL)/paged.atom" }
                  - { name: two, source: feed, url: "\(server.baseURL)/b/paged.atom?page=1", max_pages: 2 }

                """
            let output = try await Self.pull(yaml, in: folder)
            #expect(output.status == 0, "\(output.summary)")
            let ids = try Self.items(output).compactMap { $0["id"] as? String }
            #expect(ids.filter { $0.hasPrefix("all:") }.sorted() == (0..<9).map { "all:urn:paged:\($0)" }.sorted())
            #expect(ids.filter { $0.hasPrefix("two:") }.count == 6)
            #expect(site.targets("/paged.atom") == ["/paged.atom", "/paged.atom?page=2", "/paged.atom?page=3"])
            #expect(site.targets("/b/paged.atom") == ["/b/paged.atom?page=1", "/b/paged.atom?page=2"])
        }
    }

    @Test("a feed whose entries change between pulls: the store keeps the old and adds the new")
    func changing() async throws {
        let site = FeedSite()
        try await LoopbackHTTPServer.withServer(handler: { site.handle($0) }) { server in
            let folder = try TemporaryFolder("feedagg-feed-cli")
            defer { folder.remove() }
            let yaml = "feeds:\n  - { name: ch, source: feed, url: \"\(server.baseURL)/changing.xml\" }\n"
            let first = try await Self.pull(yaml, in: folder)
            #expect(try Self.items(first).compactMap { $0["id"] as? String }.sorted() == ["ch:c-0", "ch:c-1", "ch:c-2"])
            site.generation.withLock { $0 = 2 }
            let second = try await Self.pull(yaml, in: folder)
            #expect(second.status == 0, "\(second.summary)")
            let ids = try Self.items(second).compactMap { $0["id"] as? String }.sorted()
            #expect(ids == ["ch:c-0", "ch:c-1", "ch:c-2", "ch:c-3", "ch:c-4"])
        }
    }

    @Test("an HTML login page and a 50 MiB body fail only their feeds, with clear messages")
    func hostile() async throws {
        let site = FeedSite()
        try await LoopbackHTTPServer.withServer(handler: { site.handle($0) }) { server in
            let folder = try TemporaryFolder("feedagg-feed-cli")
            defer { folder.remove() }
            let yaml = """
                settings: { retries: 0 }
                feeds:
                  - { name: good, source: feed, url: "\(server.baseURL)/releases.atom" }
                  - { name: login, source: feed, url: "\(server.baseURL)/login" }
                  - { name: huge, source: feed, url: "\(server.baseURL)/huge.xml" }

                """
            let output = try await Self.pull(yaml, in: folder)
            #expect(output.status != 0, "\(output.summary)")
            let ids = try Self.items(output).compactMap { $0["id"] as? String }
            #expect(ids.count == 3 && ids.allSatisfy { $0.hasPrefix("good:") }, "\(ids)")
            let errors = output.stderr
            #expect(errors.contains("but an HTML page arrived (Content-Type text/html; charset=utf-8), titled 'Please sign in'"), "\(errors)")
            #expect(errors.contains("over the limit of 16777216 bytes"), "\(errors)")
        }
    }

    @Test("a feed that drips forever ends at the request timeout; the other feed commits")
    func slowDrip() async throws {
        let site = FeedSite()
        try await LoopbackHTTPServer.withServer(handler: { site.handle($0) }) { server in
            let folder = try TemporaryFolder("feedagg-feed-cli")
            defer { folder.remove() }
            let yaml = """
                settings: { timeout: 20, retries: 0 }
                feeds:
                  - { name: good, source: feed, url: "\(server.baseURL)/releases.atom" }
                  - { name: drip, source: feed, url: "\(server.baseURL)/drip.xml" }

                """
            let output = try await Self.pull(yaml, in: folder)
            #expect(output.status != 0, "\(output.summary)")
            #expect(try Self.items(output).compactMap { $0["id"] as? String }.count == 3, "\(output.stderr)")
            #expect(output.stderr.contains("feed 'drip': GET \(server.baseURL)/drip.xml (page 1): timed out"), "\(output.stderr)")
        }
    }
}
