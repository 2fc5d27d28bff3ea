import CurlHTTP
import FeedCore
import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Helpers of the serve suites: the real `feedagg serve` process on an ephemeral loopback port,
// a libcurl client to talk to it, the bench server (../shared/bench/ghserver.py) as the API.

/// Why bench-server tests are skipped.
let benchServerMissing = Comment(rawValue: BenchServer.unavailableReason)

/// A running `feedagg serve --listen 127.0.0.1:0`, its port read from its `serving` line.
struct ServeProcess {
    let process: BackgroundProcess
    /// `http://127.0.0.1:PORT`.
    let base: URL

    /// Starts `feedagg serve` with `arguments` (after `serve`) and waits for its `serving` line.
    static func start(_ arguments: [String], environment: [String: String] = TestBinary.cleanEnvironment) async throws
        -> ServeProcess
    {
        let process = try BackgroundProcess.start(
            try TestBinary.feedagg, arguments: ["serve", "--listen", "127.0.0.1:0"] + arguments, environment: environment)
        let url = await process.waitForStandardError { line -> URL? in
            guard line.hasPrefix("serving http://127.0.0.1:") else { return nil }
            return URL(string: String(line.dropFirst("serving ".count)))
        }
        guard let url, url.port != 0 else {
            process.kill()
            let output = try await process.wait()
            throw ServeTestError("feedagg serve did not print its address\n\(output.summary)")
        }
        return ServeProcess(process: process, base: url)
    }

    /// `base` + `path` (which may carry a query).
    func url(_ path: String) -> URL { URL(string: base.absoluteString + path)! }

    /// SIGTERM, then the exit status and everything it wrote.
    func stop() async throws -> ProcessOutput {
        process.send(SIGTERM)
        return try await process.wait(timeout: .seconds(120))
    }

    /// `feedagg pull` of `config` into `db` (which must succeed), then `feedagg serve` of both for
    /// `body`; the server is stopped after it (killed when `body` throws) and must exit cleanly.
    /// Returns what the server wrote.
    @discardableResult
    static func afterPull(
        config: String, db: String, _ body: (_ config: String, _ db: String, _ serve: ServeProcess) async throws -> Void
    ) async throws -> ProcessOutput {
        let pull = try await TestBinary.runFeedagg(["pull", "--config", config, "--db", db, "--quiet"])
        try #require(pull.status == 0, "\(pull.summary)")
        let serve = try await start(["--config", config, "--db", db])
        do {
            try await body(config, db, serve)
        } catch {
            serve.process.kill()
            throw error
        }
        let output = try await serve.stop()
        #expect(output.status == 0 && !output.terminatedBySignal, "\(output.summary)")
        return output
    }
}

/// A libcurl client that sends exactly the headers given (no automatic `Accept-Encoding`, so a
/// gzip body arrives as sent).
final class ServeClient: Sendable {
    let client = CurlClient(configuration: .init(acceptEncoding: false))

    deinit { client.shutdown() }

    /// Sends `method` to `url` with `headers`. A POST says it is a program (`X-Feedagg-Client`),
    /// as the server requires of a state change without a token, unless `asProgram` is false.
    func send(_ url: URL, method: String = "GET", headers: [(String, String)] = [], asProgram: Bool = true)
        async throws -> HTTPResponse
    {
        var fields = HTTPHeaders(headers)
        if method == "POST", asProgram, fields["X-Feedagg-Client"] == nil { fields.set("X-Feedagg-Client", "test") }
        return try await client.send(HTTPRequest(url: url, method: method, headers: fields))
    }

    /// GETs `url`, requiring status 200; returns the body as text and the response.
    func text(_ url: URL, headers: [(String, String)] = []) async throws -> (String, HTTPResponse) {
        let response = try await send(url, headers: headers)
        try #require(response.status == 200, "GET \(url): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        return (String(decoding: response.body, as: UTF8.self), response)
    }
}

/// The URL of `Link: <URL>; rel="next"`, if any.
func nextLink(_ response: HTTPResponse) -> URL? {
    guard let header = response.headers["Link"] else { return nil }
    for link in header.split(separator: ",") where link.contains("rel=\"next\"") {
        guard let open = link.firstIndex(of: "<"), let close = link.firstIndex(of: ">") else { continue }
        return URL(string: String(link[link.index(after: open)..<close]))
    }
    return nil
}

/// The feeds.yaml of github.repos feeds (`name`, `org`) against `base`.
func reposYAML(_ feeds: [(name: String, org: String)], base: URL, perPage: Int = 20, settings: [String] = []) -> String {
    var lines = settings.isEmpty ? [] : ["settings:"] + settings.map { "  \($0)" }
    lines.append("feeds:")
    for feed in feeds {
        lines += [
            "  - name: \(feed.name)", "    source: github.repos", "    base_url: \(base.absoluteString)",
            "    org: \(feed.org)", "    per_page: \(perPage)",
        ]
    }
    return lines.joined(separator: "\n") + "\n"
}

/// A JSON object from `text`.
func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text.prefix(300))")
}

/// A test's setup failed (the server did not start…).
struct ServeTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A libcurl client that asks for gzip and decodes it (what a feed reader does).
final class CurlClientDecoding: Sendable {
    let client = CurlClient(configuration: .init(acceptEncoding: true))

    deinit { client.shutdown() }

    func send(_ url: URL) async throws -> HTTPResponse {
        try await client.send(HTTPRequest(url: url))
    }
}
