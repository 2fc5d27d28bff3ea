import CurlHTTP
import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer

/// A loopback API (``PageAPI``), a feeds.yaml declaring its two feeds, and `feedagg serve` over a
/// store it pulled from them: what the browser and newsboat tests run against.
struct ServedStore {
    let folder: TemporaryFolder
    let api: PageAPI
    let apiServer: LoopbackHTTPServer
    let serve: ServeProcess
    let client: CurlClient

    var base: String { serve.baseURL }

    /// Starts the API, fills the store from it with `feedagg pull`, starts `feedagg serve` over
    /// that store and waits until `/api/items` reports the API's `count` items.
    static func start(count: Int) async throws -> ServedStore {
        let folder = try TemporaryFolder("feedagg-serve-page")
        let api = PageAPI(count: count)
        let apiServer = try await LoopbackHTTPServer.start { request in await api.handle(request) }
        let client = CurlClient()
        do {
            _ = try folder.write("feeds.yaml", PageAPI.feedsYAML(base: apiServer.baseURL))
            try await pull(in: folder)
            let serve = try await ServeProcess.start(serveArguments(folder), in: folder)
            let store = ServedStore(folder: folder, api: api, apiServer: apiServer, serve: serve, client: client)
            try await store.waitForItems(count)
            return store
        } catch {
            client.shutdown()
            try? await apiServer.shutdown()
            folder.remove()
            throw error
        }
    }

    /// The arguments of `feedagg serve` (after `--listen`) over the store in `folder`.
    static func serveArguments(_ folder: TemporaryFolder) -> [String] {
        ["--config", folder.path("feeds.yaml"), "--db", folder.path("store.sqlite")]
    }

    /// `feedagg pull` of the feeds into the store (the served one, once the server runs).
    static func pull(in folder: TemporaryFolder) async throws {
        let pull = try await TestBinary.runFeedagg(
            ["pull", "--config", folder.path("feeds.yaml"), "--db", folder.path("store.sqlite"), "-q"],
            currentDirectory: folder.url)
        guard pull.status == 0 else { throw BrowserTestError("feedagg pull failed: \(pull.summary)") }
    }

    /// `POST /api/refresh`, then `GET /api/refresh/status` until it is `done` (at most 60 s).
    func refresh() async throws {
        let (status, body) = try await request("/api/refresh", method: "POST")
        guard (200..<300).contains(status) else {
            throw BrowserTestError("POST /api/refresh answered \(status): \(String(decoding: body, as: UTF8.self))")
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await json("/api/refresh/status")["done"] as? Bool == true { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BrowserTestError("the refresh was not done within 60 s\n\(serve.output.suffix(3000))")
    }

    /// Stops the server, the API and the client, and removes the folder.
    func stop() async {
        await serve.stop()
        client.shutdown()
        try? await apiServer.shutdown()
        folder.remove()
    }

    /// `GET` (or `method`) `path` on the server: status and body.
    func request(_ path: String, method: String = "GET") async throws -> (status: Int, body: Data) {
        let response = try await response(path, method: method)
        return (response.status, response.body)
    }

    /// The whole response to `GET` (or `method`) `path`.
    func response(_ path: String, method: String = "GET", accept: String = "application/json") async throws -> HTTPResponse {
        guard let url = URL(string: base + path) else { throw BrowserTestError("bad path \(path)") }
        // A POST (a refresh) says it is no cross-site form: the server refuses simple state changes.
        var headers: HTTPHeaders = ["Accept": accept]
        if method == "POST" { headers.set("X-Feedagg-Client", "test") }
        return try await client.send(HTTPRequest(url: url, method: method, headers: headers))
    }

    /// The JSON object at `path`.
    func json(_ path: String) async throws -> [String: Any] {
        let (status, body) = try await request(path)
        guard status == 200, let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw BrowserTestError("GET \(path) answered \(status): \(String(decoding: body.prefix(500), as: UTF8.self))")
        }
        return object
    }

    /// Waits (up to 60 s) until `/api/items` reports `total` items.
    func waitForItems(_ total: Int, containing id: String? = nil) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        var last = ""
        while ContinuousClock.now < deadline {
            if let page = try? await json("/api/items?limit=5") {
                let ids = (page["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                if page["total_items"] as? Int == total && (id.map(ids.contains) ?? true) { return }
                last = "total_items \(page["total_items"] ?? "?"), first ids \(ids)"
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw BrowserTestError("the served store never reached \(total) items (\(last))\n\(serve.output)")
    }

    /// Item ids of the whole stream (of the search `query` when given), read through `feedagg show
    /// --format json` page by page (the `--after` cursor chain), `perPage` at a time.
    func showPagedIDs(perPage: Int, query: String? = nil) async throws -> [String] {
        var ids: [String] = []
        var cursor: String? = nil
        repeat {
            var arguments = [
                "show", "--config", folder.path("feeds.yaml"), "--db", folder.path("store.sqlite"), "--per-page",
                String(perPage), "--format", "json",
            ]
            if let cursor { arguments += ["--after", cursor] }
            if let query { arguments += ["--query", query] }
            let output = try await TestBinary.runFeedagg(arguments, environment: TestBinary.cleanEnvironment)
            guard output.status == 0,
                let page = try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any]
            else { throw BrowserTestError("show failed: \(output.summary)") }
            let items = (page["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            ids += items
            cursor = items.isEmpty ? nil : page["next_cursor"] as? String
        } while cursor != nil && ids.count < 10_000
        return ids
    }
}
