import FeedCore
import FeedaggTesting
import Foundation
import Synchronization
import Testing

@Suite("RFC 8288 Link header parsing")
struct LinkHeaderTests {
    /// parse-link-header's shape: keyed by rel token, each with url, rel, parameters, query items.
    static func thlorenzShape(_ links: [WebLink]) -> [String: [String: String]]? {
        var out: [String: [String: String]] = [:]
        for link in links {
            for rel in link.relations {
                var entry: [String: String] = ["url": link.target, "rel": rel]
                for parameter in link.parameters where parameter.name != "rel" { entry[parameter.name] = parameter.value }
                if let items = URLComponents(string: link.target)?.percentEncodedQueryItems {
                    for item in items {
                        let value = (item.value ?? "").replacingOccurrences(of: "+", with: " ")
                        entry[item.name] = value.removingPercentEncoding ?? value
                    }
                }
                out[rel] = entry
            }
        }
        return out.isEmpty ? nil : out
    }

    static func vectors(_ name: String) throws -> [[String: Any]] {
        let url = RepositoryPaths.realworld.appendingPathComponent("link-header-vectors/\(name)")
        let object = try #require(try RepositoryPaths.json(url) as? [String: Any])
        return try #require(object["cases"] as? [[String: Any]])
    }

    @Test("thlorenz/parse-link-header vectors", .enabled(if: RepositoryPaths.hasRealworld, "../shared/realworld is absent"))
    func thlorenzVectors() throws {
        let cases = try Self.vectors("thlorenz.parse-link-header.json")
        #expect(cases.count >= 10)
        for testCase in cases {
            let header = try #require(testCase["header"] as? String)
            let expected = testCase["expected"] as? [String: [String: String]]
            let actual = Self.thlorenzShape(LinkHeader.parse(header))
            #expect(actual == expected, "\(testCase["test"] ?? "")")
        }
    }

    @Test("psf/requests parse_header_links vectors", .enabled(if: RepositoryPaths.hasRealworld, "../shared/realworld is absent"))
    func requestsVectors() throws {
        for testCase in try Self.vectors("requests.parse_header_links.json") {
            let header = try #require(testCase["header"] as? String)
            let expected = try #require(testCase["expected"] as? [[String: String]])
            let actual = LinkHeader.parse(header).map { link in
                var entry = ["url": link.target]
                for parameter in link.parameters { entry[parameter.name] = parameter.value }
                return entry
            }
            #expect(actual == expected, "header: \(header)")
        }
    }

    @Test("GitHub header with next and last")
    func github() {
        let links = LinkHeader.parse(
            #"<https://api.github.com/organizations/69631/repos?per_page=30&page=2>; rel="next", <https://api.github.com/organizations/69631/repos?per_page=30&page=5>; rel="last""#
        )
        #expect(links.count == 2)
        #expect(LinkHeader.first("next", in: links)?.target == "https://api.github.com/organizations/69631/repos?per_page=30&page=2")
        #expect(LinkHeader.first("last", in: links)?.target == "https://api.github.com/organizations/69631/repos?per_page=30&page=5")
    }

    @Test("several rels in one value, mixed case, unquoted, extra spaces")
    func severalRels() {
        let links = LinkHeader.parse(#"  <https://x.test/p?page=9> ;  REL = "Next  LAST" ; title="a, b; c" ,<https://x.test/p?page=1>;rel=First"#)
        #expect(links.count == 2)
        #expect(links[0].relations == ["next", "last"])
        #expect(links[0].parameter("title") == "a, b; c")
        #expect(LinkHeader.first("last", in: links)?.target == "https://x.test/p?page=9")
        #expect(LinkHeader.first("first", in: links)?.target == "https://x.test/p?page=1")
    }

    @Test("commas and semicolons inside the target and quoted values do not split")
    func quotedSeparators() {
        let links = LinkHeader.parse(#"<https://x.test/a;b,c?q=1,2>; rel="next"; title="x, y", <https://x.test/z>; rel=prev"#)
        #expect(links.map(\.target) == ["https://x.test/a;b,c?q=1,2", "https://x.test/z"])
        #expect(links[0].parameter("title") == "x, y")
    }

    @Test("escaped quotes and RFC 8187 extended values")
    func escapes() {
        let links = LinkHeader.parse(#"<https://x.test/>; rel="next"; title="say \"hi\""; title*=UTF-8'de'n%c3%a4chstes"#)
        #expect(links.count == 1)
        #expect(links[0].parameters.map(\.value) == ["next", #"say "hi""#, "nächstes"])
    }

    @Test("relative targets resolve against the request URL")
    func relative() throws {
        let base = try #require(URL(string: "https://api.example.test/v1/items?page=1"))
        let links = LinkHeader.parse(#"</v1/items?page=2>; rel="next", <?page=3>; rel="last""#)
        #expect(LinkHeader.first("next", in: links)?.resolved(against: base)?.absoluteString == "https://api.example.test/v1/items?page=2")
        #expect(LinkHeader.first("last", in: links)?.resolved(against: base)?.absoluteString == "https://api.example.test/v1/items?page=3")
    }

    @Test("garbage and pathological input never hang or crash", .timeLimit(.minutes(1)), arguments: [
        "", ",,,", "<", ">", "<unterminated", ";;;rel=next", String(repeating: " ", count: 10_000),
        "<a>; rel=\"" + String(repeating: " ", count: 10_000), String(repeating: "<a>;rel=next,", count: 2_000),
        "<x>; =value; rel", "<x>; rel=\"next\"garbage; foo",
    ])
    func garbage(_ header: String) {
        // On a thread of its own with a deadline: a parse that loops fails this test in 10 s
        // instead of stalling the suite (a synchronous loop cannot be cancelled).
        let done = DispatchSemaphore(value: 0)
        let count = Mutex(-1)
        Thread.detachNewThread {
            let links = LinkHeader.parse(header)
            count.withLock { $0 = links.count }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success else {
            Issue.record("LinkHeader.parse did not return within 10 s for \(header.prefix(40).debugDescription)…")
            return
        }
        let parsed = count.withLock { $0 }
        #expect((0...2_000).contains(parsed))
        if header.hasPrefix("<a>;rel=next,") { #expect(parsed == 2_000, "every link of a long header is kept") }
    }

    @Test("a link without rel is kept but has no relations")
    func noRel() {
        let links = LinkHeader.parse(#"<https://x.test/>; type="text/html""#)
        #expect(links.count == 1)
        #expect(links[0].relations.isEmpty)
        #expect(LinkHeader.first("next", in: links) == nil)
    }
}
