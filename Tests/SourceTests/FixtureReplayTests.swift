import CurlHTTP
import FeedCore
import FeedReplay
import FeedaggTesting
import Foundation
import GitHubSource
import PhotosSource
import Testing

// Every demo feed of feeds.yaml, pulled from its recorded exchanges in Fixtures/<feed>/ through
// the real stack: a ReplayServer on 127.0.0.1, the libcurl client and the engine. Expectations
// are computed from the fixture files themselves, never hard-coded.

@Suite("Fixture replay: each demo feed through ReplayServer + CurlClient + FeedEngine")
struct FixtureReplayTests {
    /// The demo feeds' names, read from feeds.yaml when the tests are discovered.
    static let feedNames: [String] = (try? DemoConfiguration.load().feeds.map(\.name)) ?? []

    @Test("a symbolic link to the fixtures folder loads the same exchanges as the folder")
    func symlinkedFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedagg-fixture-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("Fixtures")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: RepositoryPaths.fixtures)
        let direct = try FixtureStore.load(directory: RepositoryPaths.fixtures.path)
        let linked = try FixtureStore.load(directory: link.path)
        #expect(!direct.isEmpty)
        #expect(linked.map(\.url) == direct.map(\.url))
    }

    @Test("feeds.yaml declares a fixture-backed feed for every built-in source type")
    func everySourceTypeIsCovered() throws {
        let configuration = try DemoConfiguration.load()
        #expect(!configuration.feeds.isEmpty, "feeds.yaml declares no feeds")
        let declared = Set(configuration.feeds.map(\.sourceType))
        let builtIn = Set(DemoConfiguration.sourceTypes.map { $0.descriptor.typeName })
        #expect(declared == builtIn, "feeds.yaml should exercise every built-in source type")
        for feed in configuration.feeds {
            let directory = RepositoryPaths.fixtures.appendingPathComponent(feed.name)
            let files = try RecordedFeed.files(in: directory)
            #expect(!files.isEmpty, "no recorded exchanges in Fixtures/\(feed.name)/")
        }
    }

    @Test("replaying a demo feed yields exactly its recorded items", arguments: feedNames)
    func replay(feedName: String) async throws {
        let configuration = try DemoConfiguration.load()
        let declaration = try #require(configuration.feeds.first { $0.name == feedName })
        let recording = try RecordedFeed(directory: RepositoryPaths.fixtures.appendingPathComponent(feedName))

        let replay = try await ReplayServer.start(directory: recording.directory.path)
        let client = CurlClient()
        let result: FeedResult
        do {
            let feed = try declaration.makeFeed(baseURL: replay.baseURL)
            result = await FeedEngine(transport: client, pageConcurrency: 8).pull(feed)
        } catch {
            client.shutdown()
            try await replay.shutdown()
            throw error
        }
        client.shutdown()
        let served = replay.requestsServed
        try await replay.shutdown()

        #expect(result.error == nil, "feed failed: \(result.error.map(String.init(describing:)) ?? "")")
        #expect(result.source == declaration.sourceType)
        // Counts: every recorded page fetched once, nothing else.
        #expect(result.items.count == recording.itemCount)
        #expect(result.requests == recording.exchanges.count)
        #expect(result.pages == recording.exchanges.count)
        #expect(served == recording.exchanges.count, "the replay server saw \(served) requests")
        // Identity and order: the recorded elements, page after page.
        let ids = result.items.map(\.id)
        #expect(Set(ids).count == ids.count, "duplicate item ids")
        #expect(ids == recording.expectedIDs(sourceType: declaration.sourceType))
        if let maxPages = declaration.maxPages {
            #expect(result.pages <= maxPages)
        }

        // One mapped item, checked field by field against its raw JSON.
        let first = try #require(result.items.first)
        let raw = try #require(recording.firstElement)
        try SpotCheck.check(first, raw: raw, sourceType: declaration.sourceType, feed: declaration)
    }
}

// MARK: - The recorded exchanges of one feed

/// The exchange files of `Fixtures/<feed>/`, in page order, with their bodies parsed.
private struct RecordedFeed {
    struct Page {
        var number: Int
        var url: String
        var elements: [[String: Any]]
    }

    let directory: URL
    let exchanges: [FixtureExchange]
    /// Pages ordered by their `page` query parameter (page 1 has none); the files are numbered
    /// in the order the responses arrived, which fan-out makes differ from page order.
    let pages: [Page]

    static func files(in directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" && $0.lastPathComponent != FixtureFeedFile.fileName }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    init(directory: URL) throws {
        self.directory = directory
        exchanges = try FixtureStore.load(directory: directory.path)
        var pages: [Page] = []
        for file in try Self.files(in: directory) {
            let object = try #require(try RepositoryPaths.json(file) as? [String: Any], "\(file.path)")
            let request = try #require(object["request"] as? [String: Any])
            let response = try #require(object["response"] as? [String: Any])
            let url = try #require(request["url"] as? String)
            let body = response["body"]
            let elements: [Any]
            if let array = body as? [Any] {
                elements = array
            } else if let envelope = body as? [String: Any], let photos = envelope["photos"] as? [Any] {
                elements = photos
            } else {
                Issue.record("\(file.lastPathComponent): body is neither a list nor a photos envelope")
                elements = []
            }
            let components = URLComponents(string: url)
            let number = components?.queryItems?.first { $0.name == "page" }?.value.flatMap { Int($0) } ?? 1
            pages.append(Page(number: number, url: url, elements: elements.compactMap { $0 as? [String: Any] }))
        }
        self.pages = pages.sorted { $0.number < $1.number }
        #expect(
            self.pages.map(\.number) == Array(1...max(1, pages.count)),
            "recorded pages of \(directory.lastPathComponent) are not 1…N")
    }

    var itemCount: Int { pages.reduce(0) { $0 + $1.elements.count } }

    var firstElement: [String: Any]? { pages.first?.elements.first }

    /// `<source type>:<id>` of every recorded element, in page order (members without an id use their login).
    func expectedIDs(sourceType: String) -> [String] {
        pages.flatMap { page in
            page.elements.map { element -> String in
                let identity = element["id"].map { "\($0)" } ?? (element["login"] as? String ?? "?")
                return "\(sourceType):\(identity)"
            }
        }
    }
}

// MARK: - Field-by-field expectations for one mapped item

private enum SpotCheck {
    static func check(
        _ item: FeedItem, raw: [String: Any], sourceType: String, feed: DemoConfiguration.Declaration
    ) throws {
        switch sourceType {
        case "github.repos": try repository(item, raw)
        case "github.members": try member(item, raw, organization: try #require(feed.values["org"]))
        case "github.gists": try gist(item, raw)
        case "photos.500px": try photo(item, raw)
        default: Issue.record("no spot check for source type \(sourceType)")
        }
        #expect(item.raw != nil && !(item.raw ?? Data()).isEmpty, "the item keeps its raw JSON")
    }

    static func date(_ value: Any?) throws -> Date {
        let text = try #require(value as? String)
        return try #require(ISO8601.date(from: text), "unparsable date \(text)")
    }

    static func repository(_ item: FeedItem, _ raw: [String: Any]) throws {
        let owner = try #require(raw["owner"] as? [String: Any])
        #expect(item.title == raw["name"] as? String)
        #expect(item.url == raw["html_url"] as? String)
        #expect(item.author?.name == owner["login"] as? String)
        #expect(item.author?.url == owner["html_url"] as? String)
        #expect(item.author?.avatarURL == owner["avatar_url"] as? String)
        let language = raw["language"] as? String ?? "No language"
        let forks = try #require(raw["forks_count"] as? Int)
        let watchers = try #require(raw["watchers_count"] as? Int)
        let issues = try #require(raw["open_issues_count"] as? Int)
        #expect(item.summary == "\(language) - \(forks) forks - \(watchers) watchers - \(issues) open issues")
        #expect(item.published == (try date(raw["created_at"])))
        #expect(item.updated == (try date(raw["updated_at"])))
    }

    static func member(_ item: FeedItem, _ raw: [String: Any], organization: String) throws {
        let login = try #require(raw["login"] as? String)
        #expect(item.title == login)
        #expect(item.url == raw["html_url"] as? String)
        #expect(item.author?.name == login)
        #expect(item.imageURL == raw["avatar_url"] as? String)
        var summary = "Member of \(organization)"
        if let type = raw["type"] as? String, type != "User" { summary += " (\(type))" }
        if raw["site_admin"] as? Bool == true { summary += " (site admin)" }
        #expect(item.summary == summary)
        #expect(item.published == nil && item.updated == nil, "members carry no dates")
    }

    static func gist(_ item: FeedItem, _ raw: [String: Any]) throws {
        let files = try #require(raw["files"] as? [String: [String: Any]])
        let sorted = files.map { key, file in (name: file["filename"] as? String ?? key, language: file["language"] as? String) }
            .sorted { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) }
        let description = (raw["description"] as? String ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let id = try #require(raw["id"] as? String)
        #expect(item.title == (description.isEmpty ? sorted.first?.name ?? id : description))
        let listed = sorted.prefix(10).map { file in file.language.map { "\(file.name) (\($0))" } ?? file.name }
        var summary = "\(sorted.count) \(sorted.count == 1 ? "file" : "files"): " + listed.joined(separator: ", ")
        if sorted.count > 10 { summary += " and \(sorted.count - 10) more" }
        #expect(item.summary == summary)
        #expect(item.url == raw["html_url"] as? String)
        let owner = try #require(raw["owner"] as? [String: Any])
        #expect(item.author?.name == owner["login"] as? String)
        #expect(item.published == (try date(raw["created_at"])))
        #expect(item.updated == (try date(raw["updated_at"])))
    }

    static func photo(_ item: FeedItem, _ raw: [String: Any]) throws {
        let id = try #require(raw["id"] as? Int)
        let user = try #require(raw["user"] as? [String: Any])
        let name = (raw["name"] as? String ?? "").trimmingCharacters(in: .whitespaces)
        #expect(item.title == (name.isEmpty ? "Untitled" : name))
        if let url = raw["url"] as? String, !url.isEmpty {
            #expect(item.url?.hasSuffix(url) == true)
        } else {
            #expect(item.url == "https://500px.com/photo/\(id)")
        }
        #expect(item.imageURL == raw["image_url"] as? String)
        let username = try #require(user["username"] as? String)
        #expect(item.author?.name == (user["fullname"] as? String ?? username))
        #expect(item.author?.url == "https://500px.com/\(username)")
        #expect(item.published == (try date(raw["created_at"])))
        // The summary is the description as one line of plain text, at most 200 characters.
        let description = (raw["description"] as? String ?? "").split(whereSeparator: \.isWhitespace)
            .joined(separator: " ")
        if description.isEmpty {
            #expect(item.summary == nil)
        } else {
            let summary = try #require(item.summary)
            #expect(summary.count <= 200)
            if description.count <= 200 {
                #expect(summary == description)
            } else {
                #expect(description.hasPrefix(summary.trimmingCharacters(in: CharacterSet(charactersIn: "…. "))))
            }
        }
    }
}

// MARK: - feeds.yaml, read without FeedConfig

/// The demo feeds.yaml, read by a deliberately small reader.
///
/// SourceTests depends on the source modules, not on the YAML loader (FeedConfig), so this reads
/// the flat subset feeds.yaml uses: top-level `settings:`, `defaults:` and `feeds:` blocks of
/// `key: value` lines, `#` comments, and `${VAR}` references, which resolve as unset (as with an
/// empty environment). Anything else fails loudly, naming the line. The CLI end-to-end tests run
/// the real loader on the same file.
struct DemoConfiguration {
    /// One `- name: …` entry.
    struct Declaration {
        var name: String
        var sourceType: String
        var values: [String: String]
        var parameters: FeedParameters

        /// The feed's `max_pages`, if any.
        var maxPages: Int? { values["max_pages"].flatMap { Int($0) } }

        /// The feed built as the registry builds it, addressed to `baseURL` (the replay server).
        func makeFeed(baseURL: URL) throws -> Feed {
            let type = try #require(
                DemoConfiguration.sourceTypes.first { $0.descriptor.typeName == sourceType },
                "unknown source type \(sourceType)")
            let descriptor = type.descriptor
            let pageSize = try parameters.integer("per_page", in: 1...descriptor.maxPageSize) ?? descriptor.defaultPageSize
            let maxPages = try parameters.integer("max_pages", in: 1...1_000_000)
            let context = FeedContext(name: name, baseURL: baseURL, pageSize: pageSize, maxPages: maxPages)
            return Feed(source: try type.init(feed: context, parameters: parameters), context: context)
        }
    }

    /// The built-in source types.
    static let sourceTypes: [any FeedSource.Type] = [
        GitHubReposSource.self, GitHubMembersSource.self, GitHubGistsSource.self, FiveHundredPxSource.self,
    ]

    var feeds: [Declaration]

    struct UnsupportedYAML: Error, CustomStringConvertible {
        var line: Int
        var text: String
        var description: String { "feeds.yaml:\(line): this test's reader does not understand '\(text)'" }
    }

    static func load(_ url: URL = RepositoryPaths.root.appendingPathComponent("feeds.yaml")) throws -> DemoConfiguration {
        let text = try String(contentsOf: url, encoding: .utf8)
        let file = SourceFile(path: url.path, text: text)
        var section = ""
        var defaults: [(key: ConfigNode, value: ConfigNode)] = []
        var feeds: [[(key: ConfigNode, value: ConfigNode)]] = []
        var feedLocations: [FeedCore.SourceLocation] = []

        for (index, rawLine) in file.lines.enumerated() {
            let number = index + 1
            var line = rawLine
            if let hash = line.range(of: " #") { line = String(line[..<hash.lowerBound]) }
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("#") { line = "" }
            while line.last?.isWhitespace == true { line.removeLast() }
            if line.isEmpty { continue }
            let indent = line.prefix { $0 == " " }.count
            let content = String(line.dropFirst(indent))

            func entry(_ text: String, column: Int) throws -> (key: ConfigNode, value: ConfigNode) {
                guard let colon = text.firstIndex(of: ":") else { throw UnsupportedYAML(line: number, text: rawLine) }
                let key = String(text[..<colon])
                let rest = text[text.index(after: colon)...]
                let leading = rest.prefix { $0 == " " }.count
                var value = String(rest.dropFirst(leading))
                let valueColumn = column + key.count + 1 + leading
                var plain = true
                if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
                    value = String(value.dropFirst().dropLast())
                    plain = false
                }
                var unset: [String] = []
                if value.hasPrefix("${"), value.hasSuffix("}"), !value.dropFirst(2).contains("$") {
                    unset = [String(value.dropFirst(2).dropLast())]
                    value = ""
                } else if value.contains("${") || value.hasPrefix("[") || value.hasPrefix("{") || value.hasPrefix("|")
                    || value.hasPrefix(">") || value.hasPrefix("&") || value.hasPrefix("*")
                {
                    throw UnsupportedYAML(line: number, text: rawLine)
                }
                return (
                    ConfigNode(.scalar(key, plain: true), at: FeedCore.SourceLocation(file: file, line: number, column: column)),
                    ConfigNode(
                        .scalar(value, plain: plain), at: FeedCore.SourceLocation(file: file, line: number, column: valueColumn),
                        unsetVariables: unset)
                )
            }

            switch indent {
            case 0:
                guard content.hasSuffix(":"), !content.dropLast().contains(":") else {
                    throw UnsupportedYAML(line: number, text: rawLine)
                }
                section = String(content.dropLast())
            case 2 where section == "feeds" && content.hasPrefix("- "):
                feeds.append([try entry(String(content.dropFirst(2)), column: 5)])
                feedLocations.append(FeedCore.SourceLocation(file: file, line: number, column: 3))
            case 2 where section == "defaults":
                defaults.append(try entry(content, column: 3))
            case 2 where section == "settings":
                _ = try entry(content, column: 3)
            case 4 where section == "feeds" && !feeds.isEmpty:
                feeds[feeds.count - 1].append(try entry(content, column: 5))
            default:
                throw UnsupportedYAML(line: number, text: rawLine)
            }
        }

        let defaultsNode = ConfigNode(.mapping(defaults), at: FeedCore.SourceLocation(file: file, line: 1, column: 1))
        let declarations = try zip(feeds, feedLocations).map { entries, location -> Declaration in
            let node = ConfigNode(.mapping(entries), at: location)
            var values: [String: String] = [:]
            for (key, value) in entries {
                if let key = key.scalar, let text = value.scalar, !value.isNull { values[key] = text }
            }
            let name = try #require(values["name"], "a feed without a name at \(location)")
            let source = try #require(values["source"], "feed \(name) has no source")
            return Declaration(
                name: name, sourceType: source, values: values,
                parameters: FeedParameters(node: node, defaults: defaultsNode, feedName: name, sourceType: source))
        }
        return DemoConfiguration(feeds: declarations)
    }
}
