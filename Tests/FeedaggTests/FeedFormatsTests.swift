import FeedCore
import FeedaggKit
import FeedaggTesting
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

// Issue 12, feed formats: `--format atom` and `--format jsonfeed` of `show` and `pull`, through the
// built binary over the store `pull --replay Fixtures` builds from the repository's feeds.yaml.
//
// Golden files: Tests/FeedaggTests/Golden/. After an intended change of the output, rewrite them with
//   FEEDAGG_UPDATE_GOLDEN=1 swift test --skip-build --filter FeedFormatsTests
// and review the diff. The store is stamped by FEEDAGG_TEST_STORE_CLOCK, so the undated items' dates
// (when the store first saw them) are the same on every run.
//
// feedparser: `make test` (through `make pytools`) creates .build/venv with PyPI's feedparser; the
// tests run Scripts/feedparser-dump.py with it and fail, not skip, when it is missing.

/// The fixed instant the replay store is stamped with: 2023-11-14T22:13:20Z.
private let storeEpoch = "1700000000"

/// Runs `feedagg` from the repository root with the fixed store clock.
private func feedagg(_ arguments: [String]) async throws -> ProcessOutput {
    var environment = TestBinary.cleanEnvironment
    environment["FEEDAGG_TEST_STORE_CLOCK"] = storeEpoch
    return try await TestBinary.runFeedagg(arguments, environment: environment, currentDirectory: RepositoryPaths.root)
}

/// A store pulled from Fixtures/ with the demo feeds.yaml, in a temporary folder; `body` gets its path.
private func withReplayStore(_ body: (String) async throws -> Void) async throws {
    let folder = try TemporaryFolder("feedagg-formats")
    defer { folder.remove() }
    let db = folder.path("s.sqlite")
    let pull = try await feedagg(["pull", "--replay", "Fixtures", "--config", "feeds.yaml", "--db", db, "-q", "--format", "json"])
    try #require(pull.status == 0, "\(pull.summary)")
    try await body(db)
}

/// The items of a `--format json` page or document.
private func jsonItems(_ output: ProcessOutput) throws -> [[String: Any]] {
    let object = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    return try #require(object["items"] as? [[String: Any]], "no items in \(output.stdout.prefix(200))")
}

/// What Scripts/feedparser-dump.py reports for `atom` (a document), run by the virtualenv's Python.
func feedparserReport(_ atom: String) async throws -> [String: Any] {
    let python = RepositoryPaths.root.appendingPathComponent(".build/venv/bin/python")
    guard FileManager.default.isExecutableFile(atPath: python.path) else {
        throw FeedFormatsTestError(
            "\(python.path) is missing: run `make pytools` (or `make test`) to create the virtualenv with feedparser")
    }
    let folder = try TemporaryFolder("feedagg-feedparser")
    defer { folder.remove() }
    let file = try folder.write("feed.atom", atom)
    let script = RepositoryPaths.root.appendingPathComponent("Scripts/feedparser-dump.py").path
    let output = try await ChildProcess.run(python, arguments: [script, file.path], timeout: .seconds(120))
    guard output.status == 0 else { throw FeedFormatsTestError("feedparser-dump.py failed: \(output.summary)") }
    return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
}

/// A failure with a message.
struct FeedFormatsTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Element texts of an XML document, read with Foundation's XMLParser: whether it is well-formed,
/// and the text of every `<entry>`'s `title` and `summary`.
final class AtomReader: NSObject, XMLParserDelegate {
    private(set) var titles: [String] = []
    private(set) var summaries: [String] = []
    private(set) var error: String?
    private var inEntry = false
    private var text: String?

    /// Parses `document`; ``error`` says why it is not well-formed.
    static func read(_ document: String) -> AtomReader {
        let reader = AtomReader()
        let parser = XMLParser(data: Data(document.utf8))
        parser.delegate = reader
        if !parser.parse() { reader.error = reader.error ?? parser.parserError.map { "\($0)" } ?? "not well-formed" }
        return reader
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if elementName == "entry" { inEntry = true }
        if inEntry && (elementName == "title" || elementName == "summary") { text = "" }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text? += string }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if elementName == "entry" { inEntry = false }
        guard inEntry, let value = text else { return }
        if elementName == "title" { titles.append(value) }
        if elementName == "summary" { summaries.append(value) }
        text = nil
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) { error = "\(parseError)" }
}

@Suite("Feed formats: --format atom and jsonfeed")
struct FeedFormatsTests {
    static let golden = RepositoryPaths.root.appendingPathComponent("Tests/FeedaggTests/Golden")

    /// (golden file, show arguments after the store options).
    static let goldenCases: [(String, [String])] = [
        ("stream-page1.atom", ["--per-page", "10", "--format", "atom"]),
        ("stream-page1.json", ["--per-page", "10", "--format", "jsonfeed"]),
        ("editors-photos-page1.atom", ["--feed", "editors-photos", "--per-page", "10", "--format", "atom"]),
        ("editors-photos-page1.json", ["--feed", "editors-photos", "--per-page", "10", "--format", "jsonfeed"]),
        ("xebia-members-page1.atom", ["--feed", "xebia-members", "--per-page", "10", "--format", "atom"]),
    ]

    @Test("show --format atom|jsonfeed over the replayed Fixtures equals the golden files")
    func goldenFiles() async throws {
        let update = try TestPrerequisites.rewriting("FEEDAGG_UPDATE_GOLDEN")
        try await withReplayStore { db in
            for (name, arguments) in Self.goldenCases {
                let show = try await feedagg(["show", "--config", "feeds.yaml", "--db", db] + arguments)
                #expect(show.status == 0, "\(show.summary)")
                #expect(show.stderr.isEmpty, "a feed document has no footer: \(show.stderr)")
                let file = Self.golden.appendingPathComponent(name)
                if update {
                    try show.standardOutput.write(to: file)
                    continue
                }
                let expected = try String(contentsOf: file, encoding: .utf8)
                #expect(
                    show.stdout == expected,
                    "\(name) differs (FEEDAGG_UPDATE_GOLDEN=1 rewrites it): \(firstDifference(show.stdout, expected))")
            }
        }
    }

    @Test("feedparser reads every entry of show --all --format atom: not bozo, ids, links, dates and titles as stored")
    func feedparserAcceptsAtom() async throws {
        try await withReplayStore { db in
            let atom = try await feedagg(["show", "--config", "feeds.yaml", "--db", db, "--all", "--format", "atom"])
            #expect(atom.status == 0, "\(atom.summary)")
            let stored = try jsonItems(
                try await feedagg(["show", "--config", "feeds.yaml", "--db", db, "--all", "--format", "json"]))
            let report = try await feedparserReport(atom.stdout)
            #expect(report["bozo"] as? Bool == false, "bozo: \(report["bozo_exception"] ?? "")")
            #expect(report["version"] as? String == "atom10")
            let feed = try #require(report["feed"] as? [String: Any])
            #expect(
                feed["id"] as? String
                    == "tag:feedagg,2026:stream/facebook-repos,xebia-members,public-gists,member-gists,editors-photos")
            let entries = try #require(report["entries"] as? [[String: Any]])
            #expect(entries.count == stored.count && stored.count > 300, "\(entries.count) entries, \(stored.count) stored")
            var newest = ""
            for (entry, item) in zip(entries, stored) {
                let id = try #require(entry["id"] as? String)
                #expect(id.hasPrefix("tag:feedagg,2026:\(item["source"] as? String ?? "?")/"), "\(id)")
                #expect(entry["title"] as? String == item["title"] as? String)
                #expect(entry["link"] as? String == item["url"] as? String, "\(id)")
                let updated = try #require(entry["updated"] as? String, "\(id) has no updated date")
                let expected = (item["updated"] as? String) ?? (item["published"] as? String)
                if let expected { #expect(updated == expected, "\(id)") } else {
                    // Undated (GitHub members): when the store first saw it, the fixed test clock.
                    #expect(updated == "2023-11-14T22:13:20Z", "\(id)")
                }
                #expect(entry["tags"] as? [String] == item["feeds"] as? [String], "\(id)")
                newest = max(newest, updated)
            }
            #expect(Set(entries.compactMap { $0["id"] as? String }).count == entries.count, "ids are unique")
            #expect(feed["updated"] as? String == newest, "the feed's updated is the newest entry's")
            let photos = entries.filter { ($0["tags"] as? [String])?.contains("editors-photos") == true }
            #expect(!photos.isEmpty && photos.allSatisfy { ($0["enclosures"] as? [String])?.count == 1 })
        }
    }

    @Test("JSON Feed 1.1 structure: version, items with id, url, title, content, dates, tags; cursor paging as --format json")
    func jsonFeedStructure() async throws {
        try await withReplayStore { db in
            let base = ["show", "--config", "feeds.yaml", "--db", db]
            let all = try await feedagg(base + ["--all", "--format", "jsonfeed"])
            #expect(all.status == 0, "\(all.summary)")
            let document = try #require(try JSONSerialization.jsonObject(with: all.standardOutput) as? [String: Any])
            #expect(document["version"] as? String == "https://jsonfeed.org/version/1.1")
            #expect((document["title"] as? String)?.hasPrefix("feedagg: facebook-repos") == true)
            #expect(document["next_url"] == nil, "a command line has no next URL")
            let stored = try jsonItems(try await feedagg(base + ["--all", "--format", "json"]))
            let items = try #require(document["items"] as? [[String: Any]])
            #expect(items.count == stored.count)
            for (item, expected) in zip(items, stored) {
                let id = try #require(item["id"] as? String)
                #expect(id.hasPrefix("tag:feedagg,2026:"))
                #expect(item["url"] as? String == expected["url"] as? String, "\(id)")
                #expect(item["title"] as? String == expected["title"] as? String, "\(id)")
                #expect(item["content_text"] is String, "\(id): JSON Feed needs content")
                let modified = try #require(item["date_modified"] as? String, "\(id)")
                #expect(ISO8601.date(from: modified) != nil)
                #expect(item["tags"] as? [String] == expected["feeds"] as? [String])
            }
            let ids = items.compactMap { $0["id"] as? String }
            #expect(Set(ids).count == ids.count, "ids are unique")

            // Paging: the page's cursor is in _feedagg, and --after it continues as for --format json.
            let page1 = try await feedagg(base + ["--per-page", "7", "--format", "jsonfeed"])
            let page1Object = try #require(try JSONSerialization.jsonObject(with: page1.standardOutput) as? [String: Any])
            let json1 = try #require(
                try JSONSerialization.jsonObject(
                    with: try await feedagg(base + ["--per-page", "7", "--format", "json"]).standardOutput) as? [String: Any])
            let cursor = try #require((page1Object["_feedagg"] as? [String: Any])?["next_cursor"] as? String)
            #expect(cursor == json1["next_cursor"] as? String)
            let page2 = try await feedagg(base + ["--per-page", "7", "--after", cursor, "--format", "jsonfeed"])
            let page2Items = try #require(
                (try JSONSerialization.jsonObject(with: page2.standardOutput) as? [String: Any])?["items"] as? [[String: Any]])
            #expect(page2Items.compactMap { $0["id"] as? String } == Array(ids[7..<14]))
            // Atom carries the same cursor in its feedagg: element.
            let atom = try await feedagg(base + ["--per-page", "7", "--format", "atom"])
            #expect(atom.stdout.contains("<feedagg:next-cursor>\(cursor)</feedagg:next-cursor>"))
        }
    }

    @Test("an entry's id and updated do not change between pulls; pull --format atom prints the page show prints")
    func stableAcrossPulls() async throws {
        try await withReplayStore { db in
            let show = ["show", "--config", "feeds.yaml", "--db", db, "--per-page", "10", "--format", "atom"]
            let before = try await feedagg(show)
            // A second pull, at a later store time: nothing moves.
            var environment = TestBinary.cleanEnvironment
            environment["FEEDAGG_TEST_STORE_CLOCK"] = "1800000000"
            let pull = try await TestBinary.runFeedagg(
                ["pull", "--replay", "Fixtures", "--config", "feeds.yaml", "--db", db, "--per-page", "10", "--format", "atom"],
                environment: environment, currentDirectory: RepositoryPaths.root)
            #expect(pull.status == 0, "\(pull.summary)")
            #expect(pull.stdout == before.stdout, "pull --format atom prints what show printed before it")
            #expect(!pull.stdout.contains("2027-01-15"), "no date of the second pull's clock")
            let after = try await feedagg(show)
            #expect(after.stdout == before.stdout)
            // The summaries stay on standard error.
            #expect(pull.stdout.hasPrefix("<?xml"))
        }
    }

    @Test("hostile titles and summaries: well-formed Atom, text kept minus what XML 1.0 forbids; JSON Feed keeps it all")
    func hostileText() async throws {
        let hostile = [
            "<script>alert('x')</script>", "fish & chips", "end ]]> cdata", "esc\u{1B}[2Jape", "bell\u{07}ring",
            "non\u{FFFE}char\u{FFFF}s", "quotes \" and ' both", "c1\u{9B}31mcsi", "&amp; already",
        ]
        let api = ReposAPI(
            count: hostile.count, name: { hostile[($0 - 1) % hostile.count] },
            language: { hostile[($0 + 3) % hostile.count] }, url: { "https://github.com/acme/r\($0)?a=1&b=2" })
        let folder = try TemporaryFolder("feedagg-hostile-atom")
        defer { folder.remove() }
        try await api.pulled(into: folder) { config, db in
            let atom = try await TestBinary.runFeedagg(["show", "--config", config.path, "--db", db, "--format", "atom"])
            #expect(atom.status == 0, "\(atom.summary)")
            #expect(!atom.stdout.contains("<script>"))
            #expect(controlCharacters(in: atom.standardOutput).isEmpty, "\(controlCharacters(in: atom.standardOutput))")
            let reader = AtomReader.read(atom.stdout)
            #expect(reader.error == nil, "not well-formed: \(reader.error ?? "")\n\(atom.stdout)")
            #expect(Set(reader.titles) == Set(hostile.map(XMLText.cleaned)), "\(reader.titles)")
            #expect(Set(reader.titles).contains("<script>alert('x')</script>"))
            #expect(Set(reader.titles).contains("esc[2Jape") && Set(reader.titles).contains("nonchars"))

            let report = try await feedparserReport(atom.stdout)
            #expect(report["bozo"] as? Bool == false, "bozo: \(report["bozo_exception"] ?? "")")
            let entries = report["entries"] as? [[String: Any]] ?? []
            #expect(entries.count == hostile.count)
            #expect(entries.allSatisfy { ($0["link"] as? String)?.hasSuffix("?a=1&b=2") == true }, "\(entries)")

            let feed = try await TestBinary.runFeedagg(["show", "--config", config.path, "--db", db, "--format", "jsonfeed"])
            let items = try #require(
                (try JSONSerialization.jsonObject(with: feed.standardOutput) as? [String: Any])?["items"] as? [[String: Any]])
            #expect(Set(items.compactMap { $0["title"] as? String }) == Set(hostile), "JSON keeps the text as received")
        }
    }

    @Test("XMLText drops what XML 1.0 forbids (and C1) and escapes the five markup characters")
    func xmlText() {
        #expect(XMLText.escaped(#"a<b>&"c'"#) == "a&lt;b&gt;&amp;&quot;c&apos;")
        #expect(XMLText.escaped("x\u{0}\u{1B}\u{7}\u{FFFE}\u{FFFF}\u{7F}\u{85}y") == "xy")
        #expect(XMLText.escaped("tab\tnl\ncr\r") == "tab\tnl\ncr&#xD;")
        #expect(XMLText.escaped("emoji 📰 é") == "emoji 📰 é")
        #expect(XMLText.cleaned("a\u{1B}b<") == "ab<")
    }

    @Test("ids: tag: URIs of the source type and the percent-encoded item id; the document's from its feeds")
    func identities() {
        let entry = StreamEntry(
            item: FeedItem(id: "http:a b/ü,c", title: "t"), feed: "f", feeds: ["f"], source: "http")
        #expect(FeedIdentity.entryID(entry) == "tag:feedagg,2026:http/http:a%20b%2F%C3%BC%2Cc")
        #expect(FeedIdentity(feeds: ["a", "b c"]).id == "tag:feedagg,2026:stream/a,b%20c")
        #expect(FeedIdentity(feeds: ["a"], sources: ["github.repos"]).id == "tag:feedagg,2026:stream/a?source=github.repos")
        // Undated and never stored: the epoch, never now.
        #expect(SyndicationEntry(entry).updated == Date(timeIntervalSince1970: 0))
        var seen = entry
        seen.firstSeen = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(SyndicationEntry(seen).updated == Date(timeIntervalSince1970: 1_700_000_000))
        let empty = AtomRenderer.document([], identity: FeedIdentity(feeds: ["a"]), nextCursor: nil)
        #expect(empty.contains("<updated>1970-01-01T00:00:00Z</updated>") && AtomReader.read(empty).error == nil)
    }

    @Test("links are http(s) only: a javascript: URL is dropped, and an entry without a page gets text content")
    func webLinksOnly() {
        let item = FeedItem(
            id: "x:1", title: "t", url: "javascript:alert(1)", author: FeedAuthor(name: "n", url: "data:text/html,x"),
            imageURL: "https://cdn.example/p.JPG", updated: Date(timeIntervalSince1970: 0))
        let entry = SyndicationEntry(StreamEntry(item: item, feed: "f", feeds: ["f", "g"], source: "http"))
        #expect(entry.url == nil && entry.authorURL == nil)
        #expect(entry.imageType == "image/jpeg")
        let atom = AtomRenderer.entry(entry)
        #expect(!atom.contains("javascript") && !atom.contains("data:"))
        #expect(atom.contains(#"<content type="text">t</content>"#))
        #expect(atom.contains(#"<link rel="enclosure" type="image/jpeg" href="https://cdn.example/p.JPG"/>"#))
        #expect(atom.contains(#"<category term="g"/>"#))
    }
}

/// Where `actual` and `expected` first differ, with a little context.
private func firstDifference(_ actual: String, _ expected: String) -> String {
    let a = Array(actual.split(separator: "\n", omittingEmptySubsequences: false))
    let e = Array(expected.split(separator: "\n", omittingEmptySubsequences: false))
    for index in 0..<max(a.count, e.count) where index >= a.count || index >= e.count || a[index] != e[index] {
        return "line \(index + 1): got \(index < a.count ? String(a[index]) : "<end>"), expected \(index < e.count ? String(e[index]) : "<end>")"
    }
    return "same lines"
}
