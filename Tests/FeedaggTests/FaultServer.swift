import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// The fault-injection server and the command-line scene of FailureModeTests: healthy listings on
// loopback (GitHub-style Link-paginated repositories, 500px-style envelopes), over which a test
// scripts, per request of a page, what to answer instead: any status, headers, body, delay,
// trickle, connection reset, connection closed, truncated body or wrong Content-Length
// (``LoopbackResponse`` and its ``LoopbackResponse/Fault``).

/// A loopback API whose pages a test can replace, request by request, with scripted faults.
final class FaultServer: Sendable {
    /// The answer to the `attempt`-th request (1-based, counted since the script was set) for one
    /// page; `nil` serves the healthy page.
    typealias Script = @Sendable (_ attempt: Int, _ request: LoopbackRequest) -> LoopbackResponse?

    /// A healthy collection served at one path.
    enum Listing: Sendable {
        /// `[{id, name, html_url, updated_at}, …]` with `?per_page=&page=` and RFC 8288 `Link` headers.
        case repos(ids: ClosedRange<Int>)
        /// `{current_page, total_pages, total_items, photos: [{id, name}, …]}` with `?rpp=&page=`.
        case photos(ids: ClosedRange<Int>)
    }

    private struct State {
        var base = ""
        var listings: [String: Listing] = [:]
        /// `path#page` → script.
        var scripts: [String: Script] = [:]
        /// `path#page` → requests seen since the script was set.
        var attempts: [String: Int] = [:]
        var log: [LoopbackRequest] = []
    }

    private let state = Mutex(State())
    private let server: Mutex<LoopbackHTTPServer?> = Mutex(nil)

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { state.withLock { $0.base } }

    private init() {}

    /// Starts a server on an ephemeral loopback port.
    static func start() async throws -> FaultServer {
        let faults = FaultServer()
        let server = try await LoopbackHTTPServer.start { request in faults.respond(to: request) }
        faults.state.withLock { $0.base = server.baseURL }
        faults.server.withLock { $0 = server }
        return faults
    }

    /// Stops the server (idempotent).
    func shutdown() async {
        let running = server.withLock { server in
            defer { server = nil }
            return server
        }
        try? await running?.shutdown()
    }

    /// Serves `listing` at `path` (replacing what was there).
    func serve(_ path: String, _ listing: Listing) {
        state.withLock { $0.listings[path] = listing }
    }

    /// Answers requests for page `page` of `path` with `script` from now on (`nil`: healthy again).
    func script(_ path: String, page: Int = 1, _ script: Script?) {
        state.withLock { state in
            state.scripts["\(path)#\(page)"] = script
            state.attempts["\(path)#\(page)"] = 0
        }
    }

    /// Answers every request for page `page` of `path` with `response`.
    func always(_ path: String, page: Int = 1, _ response: LoopbackResponse) {
        script(path, page: page) { _, _ in response }
    }

    /// The requests received for `path` (any query) since the last ``resetLog()``.
    func requests(to path: String) -> [LoopbackRequest] {
        state.withLock { $0.log.filter { $0.path == path } }
    }

    /// Every request received since the last ``resetLog()``.
    var requests: [LoopbackRequest] { state.withLock { $0.log } }

    func resetLog() { state.withLock { $0.log = [] } }

    /// The query of `request` as a dictionary (values percent-decoded).
    static func query(_ request: LoopbackRequest) -> [String: String] { VersionedAPI.query(request) }

    private func respond(to request: LoopbackRequest) -> LoopbackResponse {
        let page = Self.query(request)["page"].flatMap(Int.init) ?? 1
        let key = "\(request.path)#\(page)"
        let (script, attempt, listing, base) = state.withLock { state in
            state.log.append(request)
            var attempt = 0
            if state.scripts[key] != nil {
                state.attempts[key, default: 0] += 1
                attempt = state.attempts[key, default: 0]
            }
            return (state.scripts[key], attempt, state.listings[request.path], state.base)
        }
        if let script, let scripted = script(attempt, request) { return scripted }
        switch listing {
        case .repos(let ids)?:
            return ReposPages.page(request, ids: ids, page: page, base: base)
        case .photos(let ids)?:
            let size = Self.query(request)["rpp"].flatMap(Int.init) ?? 20
            return Self.photosPage(ids: ids, page: page, size: size)
        case nil:
            return LoopbackResponse(status: 404, headers: [("Content-Type", "application/json")], text: #"{"message":"Not Found"}"#)
        }
    }

    /// Page `page` of a 500px-style envelope.
    static func photosPage(ids: ClosedRange<Int>, page: Int, size: Int) -> LoopbackResponse {
        let all = Array(ids)
        let pages = max(1, (all.count + size - 1) / size)
        let slice = all.dropFirst((page - 1) * size).prefix(size)
        let photos = slice.map { #"{"id":\#($0),"name":"photo-\#($0)"}"# }.joined(separator: ",")
        return LoopbackResponse(
            status: 200, headers: [("Content-Type", "application/json")],
            text: #"{"current_page":\#(page),"total_pages":\#(pages),"total_items":\#(all.count),"photos":[\#(photos)]}"#)
    }
}

// MARK: - The command-line scene

/// A feeds.yaml with a feed that will fail (`shaky`) and one that will not (`healthy`), each on
/// its own ``FaultServer`` (two origins: no connection, rate limit or credential is shared), a
/// temporary SQLite store, and the real `feedagg` binary to run on them.
///
/// ``seed()`` pulls both feeds cleanly; a test then scripts a fault and pulls again;
/// ``expectIntact(_:)`` checks that every seeded item is still stored and that `healthy`
/// completed the second pull (its listing gains an item that must then be stored).
struct FailureScene {
    /// Which source type `shaky` is.
    enum Shaky {
        /// `github.repos` for org `shaky`, 3 per page: page 1 is `/orgs/shaky/repos?per_page=3`.
        case repos(ids: ClosedRange<Int> = 1...3)
        /// `photos.500px` under `/px`, 3 per page.
        case photos(ids: ClosedRange<Int> = 1...3)
    }

    static let shakyReposPath = "/orgs/shaky/repos"
    static let photosPath = "/px/v1/photos"
    static let healthyPath = "/orgs/healthy/repos"

    /// `shaky`'s server, the one tests script.
    let server: FaultServer
    /// `healthy`'s server.
    let healthyServer: FaultServer
    let folder: TemporaryFolder
    /// feeds.yaml of the pull under test (and of `show`).
    let config: URL
    /// feeds.yaml of the seeding pull: the same feeds, without the fault-only settings.
    let seedConfig: URL
    let db: String
    let environment: [String: String]
    /// The path of `shaky`'s pages.
    let shakyPath: String

    /// Starts a fault server and writes feeds.yaml with `settings` lines and `shakyKeys` added to
    /// `shaky`; `faultSettings` (tight timeouts) apply to the pull under test only, so a loaded
    /// machine cannot fail the seeding pull.
    static func start(
        _ shaky: Shaky = .repos(), settings: [String] = ["retries: 0"], faultSettings: [String] = [],
        shakyKeys: [String] = [], environment: [String: String] = [:]
    ) async throws -> FailureScene {
        let server = try await FaultServer.start()
        let healthyServer = try await FaultServer.start()
        let folder = try TemporaryFolder("feedagg-faults")
        let shakyPath: String
        var shakyLines = ["  - name: shaky"]
        switch shaky {
        case .repos(let ids):
            server.serve(shakyReposPath, .repos(ids: ids))
            shakyPath = shakyReposPath
            shakyLines += ["    source: github.repos", "    org: shaky", "    base_url: \(server.baseURL)"]
        case .photos(let ids):
            server.serve(photosPath, .photos(ids: ids))
            shakyPath = photosPath
            shakyLines += ["    source: photos.500px", "    base_url: \(server.baseURL)/px"]
        }
        shakyLines += ["    per_page: 3"] + shakyKeys.map { "    \($0)" }
        healthyServer.serve(healthyPath, .repos(ids: 1001...1002))
        let feeds = ["feeds:"] + shakyLines
            + ["  - name: healthy", "    source: github.repos", "    org: healthy", "    base_url: \(healthyServer.baseURL)", "    per_page: 3"]
        func yaml(_ settings: [String]) -> String {
            ((settings.isEmpty ? [] : ["settings:"] + settings.map { "  \($0)" }) + feeds).joined(separator: "\n") + "\n"
        }
        let config = try folder.write("feeds.yaml", yaml(settings + faultSettings))
        let seedConfig = try folder.write("seed.yaml", yaml(settings))
        var env = TestBinary.cleanEnvironment
        env.merge(environment) { _, new in new }
        return FailureScene(
            server: server, healthyServer: healthyServer, folder: folder, config: config, seedConfig: seedConfig, db: folder.url.appendingPathComponent("store.sqlite").path,
            environment: env, shakyPath: shakyPath)
    }

    /// Starts a scene (see ``start(_:settings:faultSettings:shakyKeys:environment:)``), runs
    /// `body` with it, and stops its servers and removes its folder however `body` ends.
    static func with(
        _ shaky: Shaky = .repos(), settings: [String] = ["retries: 0"], faultSettings: [String] = [],
        shakyKeys: [String] = [], environment: [String: String] = [:], _ body: (FailureScene) async throws -> Void
    ) async throws {
        let scene = try await start(
            shaky, settings: settings, faultSettings: faultSettings, shakyKeys: shakyKeys, environment: environment)
        do {
            try await body(scene)
        } catch {
            await scene.finish()
            throw error
        }
        await scene.finish()
    }

    /// `http://127.0.0.1:PORT` + `pathAndQuery`.
    func url(_ pathAndQuery: String) -> String { server.baseURL + pathAndQuery }

    /// `feedagg pull -c feeds.yaml --db store.sqlite` plus `arguments` (default `-q`: failures only on stderr).
    func pull(_ arguments: [String] = ["-q"], config: URL? = nil) async throws -> ProcessOutput {
        try await TestBinary.runFeedagg(
            ["pull", "--config", (config ?? self.config).path, "--db", db, "--format", "json"] + arguments, environment: environment,
            currentDirectory: folder.url, timeout: .seconds(120))
    }

    /// The ids `feedagg show --format json` lists for `feed`.
    func storedIDs(_ feed: String) async throws -> Set<String> {
        let output = try await TestBinary.runFeedagg(
            ["show", "--config", config.path, "--db", db, "--format", "json", "--per-page", "10000", "--feed", feed],
            environment: environment, currentDirectory: folder.url)
        try #require(output.status == 0, "show failed: \(output.summary)")
        let page = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        let items = try #require(page["items"] as? [[String: Any]])
        return Set(items.compactMap { $0["id"] as? String })
    }

    /// What ``seed()`` stored.
    struct Seeded {
        var shaky: Set<String>
        var healthy: Set<String>
    }

    /// Pulls both feeds cleanly (exit 0), then makes `healthy` gain item 1003 and clears the log.
    func seed() async throws -> Seeded {
        let first = try await pull(config: seedConfig)
        try #require(first.status == 0, "the seeding pull failed: \(first.summary)")
        let seeded = Seeded(shaky: try await storedIDs("shaky"), healthy: try await storedIDs("healthy"))
        try #require(!seeded.shaky.isEmpty && seeded.healthy.count == 2)
        healthyServer.serve(Self.healthyPath, .repos(ids: 1001...1003))
        server.resetLog()
        healthyServer.resetLog()
        return seeded
    }

    /// Every seeded item of both feeds is still stored, and `healthy`'s new item too.
    func expectIntact(_ seeded: Seeded, sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        let shaky = try await storedIDs("shaky")
        #expect(seeded.shaky.isSubset(of: shaky), "shaky lost items: \(seeded.shaky.subtracting(shaky))", sourceLocation: sourceLocation)
        let healthy = try await storedIDs("healthy")
        #expect(
            healthy == seeded.healthy.union(["github.repos:1003"]), "healthy did not complete: \(healthy)",
            sourceLocation: sourceLocation)
    }

    /// The requests `shaky` made since ``seed()``.
    var shakyRequests: Int { server.requests(to: shakyPath).count }

    func finish() async {
        await server.shutdown()
        await healthyServer.shutdown()
        folder.remove()
    }
}

/// Whether `text` matches `pattern` as a whole.
func wholeMatch(_ text: String, _ pattern: String) -> Bool {
    guard let regex = try? Regex(pattern) else { return false }
    return text.wholeMatch(of: regex) != nil
}

/// `text` escaped for use inside a regular expression.
func literal(_ text: String) -> String { NSRegularExpression.escapedPattern(for: text) }
