import ExecSource
import FeedCore
import FeedConfig
import FeedaggKit
import FeedaggTesting
import Foundation
import Testing

/// The `exec` source type: contract, configuration, the JSON-lines decoder.
@Suite("ExecSource (source: exec)")
struct ExecSourceTests {
    static let lines = """
        {"item": {"id": "a", "title": "A", "url": "https://x.test/a", "published": "2025-11-01T10:00:00Z", "author": "kim"}}

        {"item": {"id": 7, "title": "Seven", "summary": "s"}}
        {"etag": "\\"v1\\""}
        {"next": "c2"}
        """

    /// FeedSourceConformance builds its sample feeds from scalar keys only, so it cannot give
    /// `command` (a list): the rules it would check are checked here by hand.
    @Test("registered; the endpoint honours base_url; decoding has no side effects; a string command is refused")
    func contract() throws {
        #expect(SourceRegistry.builtIn.type(named: "exec") == ExecSource.self)
        let yaml = """
            feeds:
              - { name: p, source: exec, command: [./plugin.sh, "a b"], base_url: "http://127.0.0.1:9/prefix" }
              - { name: q, source: exec, command: [./plugin.sh] }

            """
        let document = try FeedsLoader.parse(
            text: yaml, path: "/srv/feeds/feeds.yaml", sources: SourceRegistry.builtIn.descriptors, environment: [:])
        let feeds = try document.feeds.map {
            try SourceRegistry.builtIn.makeFeed(name: $0.name, sourceType: $0.sourceType, parameters: $0.parameters)
        }
        let source = try #require(feeds[0].source as? ExecSource)
        #expect(source.firstPageURL.absoluteString == "http://127.0.0.1:9/prefix/exec/p")
        #expect(source.plugin.command == ["./plugin.sh", "a b"])
        #expect(source.plugin.directory == "/srv/feeds")
        #expect(source.plugin.executablePath == "/srv/feeds/plugin.sh")
        #expect(feeds[1].source.firstPageURL.absoluteString == "https://exec.feedagg.invalid/exec/q")
        let page = FetchedPage.sample(Self.lines, url: source.firstPageURL)
        let once = try source.decodePage(page)
        #expect(once.items == (try source.decodePage(page)).items)
    }

    @Test("decodes items, the next cursor and skips blank lines; ids are '<feed>:<id>'")
    func decode() throws {
        let page = try ExecLines.decode(Data(Self.lines.utf8), feedName: "p")
        #expect(page.items.map(\.id) == ["p:a", "p:7"])
        #expect(page.items[0].author?.name == "kim")
        #expect(page.items[0].published == Date(timeIntervalSince1970: 1_761_991_200))
        #expect(page.nextCursor == "c2")
        let control = ExecLines.control(in: Data(Self.lines.utf8))
        #expect(control.etag == "\"v1\"" && !control.notModified)
        #expect(ExecLines.control(in: Data(#"{"not_modified": true}"#.utf8)).notModified)
    }

    @Test(
        "a wrong line is an error with its line number",
        arguments: [
            (#"{"item": {"id": 1, "title": "t", "published": "yesterday"}}"#, "line 1: $.item.published"),
            (#"{"item": {"id": 1, "title": "t", "colour": "red"}}"#, "line 1: $.item.colour"),
            (#"{"item": {"id": null, "title": "t"}}"#, "line 1: $.item.id"),
            (#"{"items": []}"#, "line 1"),
            (#"["item"]"#, "line 1"),
            ("not json", "line 1"),
            (#"{"next": 3}"#, "line 1: $.next"),
            (#"{"item": {"id": 1, "title": "t", "categories": "swift"}}"#, "line 1: $.item.categories"),
            (#"{"item": {"id": 1, "title": "t", "categories": ["swift", 2]}}"#, "line 1: $.item.categories[1]"),
        ])
    func errors(line: String, path: String) throws {
        #expect(throws: PageDecodeError.self) { try ExecLines.decode(Data(line.utf8), feedName: "p") }
        do {
            _ = try ExecLines.decode(Data(line.utf8), feedName: "p")
        } catch {
            #expect(error.path == path, "\(error)")
        }
    }

    @Test("categories: a list of strings, kept in the item's raw JSON as source: feed keeps them")
    func categories() throws {
        let line = #"{"item": {"id": 1, "title": "t", "categories": ["swift", "linux"]}}"#
        let page = try ExecLines.decode(Data(line.utf8), feedName: "p")
        let raw = try #require(page.items.first?.raw.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] })
        #expect(raw["categories"] as? [String] == ["swift", "linux"])
    }

    @Test("the request line carries the feed, page, size, cursor, params and validators")
    func request() throws {
        let plugin = ExecPlugin(
            feedName: "hn", command: ["./p"], environment: ["TOKEN": "abcdef"], directory: "/tmp", timeout: .seconds(5),
            maxOutputBytes: 1024, parameters: .object([.init("q", .string("swift"))]), pageSize: 30)
        let line = String(decoding: plugin.request(page: nil, cursor: "c/2", etag: "\"e\"", lastModified: nil), as: UTF8.self)
        #expect(
            line == #"{"feed":"hn","page":null,"per_page":30,"cursor":"c/2","params":{"q":"swift"},"etag":"\"e\"","last_modified":null}"# + "\n")
        #expect(plugin.sanitized("token abcdef\u{1B}[2J leaked") == "token REDACTED[2J leaked")
        #expect(plugin.executablePath == "/tmp/p")
    }
}
