import FeedCore
import FeedReplay
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// Helpers shared by the FeedaggTests suites: temporary folders, real-world recordings as
// fixtures, a test-only Link-paginated source, and a request recorder for loopback servers.

// MARK: - Temporary folders

/// A fresh folder under the system's temporary directory, removed by ``remove()``.
struct TemporaryFolder {
    let url: URL

    init(_ label: String = "feedagg-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` in the folder and returns its URL.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

// MARK: - Quiet pulls

/// Writes `yaml` to a temporary feeds.yaml and pulls it through the aggregator into a temporary
/// store, quietly, keeping each result's items.
func pullQuietly(_ yaml: String, environment: [String: String] = [:]) async throws -> PullReport {
    let folder = try TemporaryFolder("feedagg-pull")
    defer { folder.remove() }
    let config = try folder.write("feeds.yaml", yaml)
    var settings = PullSettings(configPath: config.path)
    settings.quiet = true
    settings.store = .temporary
    settings.retainItems = true
    return try await Aggregator(console: Console(), environment: environment).pull(settings)
}

// MARK: - Real-world recordings

/// `../shared/realworld` exchange files (`{exchanges: [{request, response}]}`), as fixtures.
enum RealworldRecording {
    static let missing: Comment = "needs ../shared/realworld beside the project (real recorded GitHub traffic)"

    /// The exchanges of `file` (relative to `../shared/realworld`) as ``FixtureExchange``s, in recorded order.
    ///
    /// Header values are kept as text (some recorders stored numbers); a JSON body is
    /// re-serialised, a text body kept as UTF-8, a null body is empty.
    static func exchanges(_ file: String) throws -> [FixtureExchange] {
        let url = RepositoryPaths.realworld.appendingPathComponent(file)
        let object = try #require(try RepositoryPaths.json(url) as? [String: Any], "\(file) is not an object")
        let exchanges = try #require(object["exchanges"] as? [[String: Any]], "\(file) has no exchanges")
        return try exchanges.map { exchange in
            let request = try #require(exchange["request"] as? [String: Any])
            let response = try #require(exchange["response"] as? [String: Any])
            let body: Data
            switch response["body"] {
            case nil, is NSNull: body = Data()
            case let text as String: body = Data(text.utf8)
            case let value?:
                body = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])
            }
            return FixtureExchange(
                method: (request["method"] as? String ?? "GET").uppercased(),
                url: try #require(request["url"] as? String),
                requestHeaders: headers(request["headers"]),
                status: try #require(response["status"] as? Int),
                responseHeaders: headers(response["headers"]),
                body: body)
        }
    }

    static func headers(_ value: Any?) -> [[String]] {
        (value as? [[Any]] ?? []).compactMap { pair in
            guard pair.count == 2, let name = pair[0] as? String else { return nil }
            return [name, pair[1] as? String ?? "\(pair[1])"]
        }
    }
}

/// The pages a Link walk over recorded exchanges visits, found by following `rel="next"` in the
/// recording itself (independently of the engine).
struct RecordedWalk {
    /// The exchanges visited, in page order.
    var pages: [FixtureExchange]

    /// Follows `next` from the first GET whose body is a JSON array.
    init(_ exchanges: [FixtureExchange]) throws {
        func isList(_ exchange: FixtureExchange) -> Bool {
            exchange.method == "GET" && exchange.status == 200
                && (try? JSONSerialization.jsonObject(with: exchange.body)) is [Any]
        }
        var current = try #require(exchanges.first(where: isList), "no list response in the recording")
        var pages = [current]
        while let link = LinkHeader.first("next", in: LinkHeader.parse(Self.values("Link", current.responseHeaders))),
            let next = link.resolved(against: URL(string: current.url))
        {
            let target = FixtureExchange(url: next.absoluteString, status: 0, responseHeaders: [], body: Data()).target
            let found = try #require(
                exchanges.first { $0.method == "GET" && Self.sameTarget($0.target, target) },
                "the recording has no exchange for its own next link \(next)")
            #expect(!pages.contains(found), "the recording's next links loop at \(target)")
            if pages.contains(found) { break }
            pages.append(found)
            current = found
        }
        self.pages = pages
    }

    static func values(_ name: String, _ headers: [[String]]) -> [String] {
        headers.filter { $0.count == 2 && $0[0].lowercased() == name.lowercased() }.map { $0[1] }
    }

    /// Targets equal, or equal with the query parameters in any order (as replay matches).
    static func sameTarget(_ a: String, _ b: String) -> Bool {
        func normalized(_ target: String) -> String {
            let parts = target.split(separator: "?", maxSplits: 1)
            guard parts.count == 2 else { return target }
            return parts[0] + "?" + parts[1].split(separator: "&").sorted().joined(separator: "&")
        }
        return a == b || normalized(a) == normalized(b)
    }

    /// The `path?query` of page 1.
    var firstTarget: String { pages[0].target }

    /// Every element of every page that has an id at `idPath`, as `test.list:<id>`, in page order.
    func ids(idPath: [String]) throws -> [String] {
        try pages.flatMap { page in
            let elements = try #require(try JSONSerialization.jsonObject(with: page.body) as? [Any])
            return elements.compactMap { RecordedListSource.identity(of: $0, at: idPath) }
                .map { "\(RecordedListSource.descriptor.typeName):\($0)" }
        }
    }
}

// MARK: - A test-only Link-paginated source

/// A list endpoint with Link pagination whose items are the array elements that carry an id.
///
/// Test-only: it exists to replay recorded walks of endpoints no built-in source covers (issues,
/// gist comments, stargazers). It sends the first URL exactly as recorded (no `per_page` added).
struct RecordedListSource: FeedSource {
    static let descriptor = SourceDescriptor(
        typeName: "test.list",
        summary: "elements of a JSON array that carry an id (test only)",
        parameters: [
            ParameterSpec("path", .string, required: true, "path and query of page 1, e.g. /repos/o/r/issues?per_page=3"),
            ParameterSpec("id_path", .string, "dot-separated key path of each element's id (default: id)"),
        ],
        pagination: #"Link header (rel="next", rel="last")"#,
        defaultBaseURL: "https://api.github.com",
        defaultPageSize: 30,
        maxPageSize: 100)

    let firstPageURL: URL
    let idPath: [String]

    /// A source whose page 1 is `firstPageURL`, exactly.
    init(firstPageURL: URL, idPath: [String] = ["id"]) {
        self.firstPageURL = firstPageURL
        self.idPath = idPath
    }

    init(feed: FeedContext, parameters: FeedParameters) throws {
        let target = try parameters.requiredString("path")
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        var components = URLComponents(url: feed.endpoint(parts[0]), resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = parts.count > 1 ? parts[1] : nil
        guard let url = components?.url else {
            throw ConfigError("'path' is not a valid path and query: \(target)", at: parameters.value("path")?.location)
        }
        firstPageURL = url
        idPath = (try parameters.string("id_path") ?? "id").split(separator: ".").map(String.init)
    }

    var pagination: any PaginationStrategy { LinkHeaderPagination(pageSizeParameter: nil) }

    func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        let body = page.response.body
        guard let elements = (try? JSONSerialization.jsonObject(with: body)) as? [Any] else {
            throw PageDecodeError(path: "$", "expected a JSON array")
        }
        let items = elements.compactMap { element -> FeedItem? in
            guard let id = Self.identity(of: element, at: idPath) else { return nil }
            return FeedItem(id: "\(Self.descriptor.typeName):\(id)", title: id)
        }
        return DecodedPage(items: items)
    }

    /// The integer or string at `path` in `element`, as text.
    static func identity(of element: Any, at path: [String]) -> String? {
        var value: Any? = element
        for key in path { value = (value as? [String: Any])?[key] }
        switch value {
        case let number as Int: return String(number)
        case let text as String: return text
        default: return nil
        }
    }
}

// MARK: - Loopback request log

/// Collects what a scripted loopback server received.
final class RequestLog: Sendable {
    private let storage = Mutex<[LoopbackRequest]>([])

    func record(_ request: LoopbackRequest) {
        storage.withLock { $0.append(request) }
    }

    var requests: [LoopbackRequest] { storage.withLock { $0 } }
}

// MARK: - Bench server

/// Why bench-server tests are skipped.
let benchServerMissing = Comment(rawValue: BenchServer.unavailableReason)

/// Starts a bench server, runs `body`, and stops the server however `body` ends.
func withBenchServer<Result>(
    _ options: BenchServer.Options, _ body: (BenchServer) async throws -> Result
) async throws -> Result {
    let server = try await BenchServer.start(options)
    defer { server.stop() }
    return try await body(server)
}
