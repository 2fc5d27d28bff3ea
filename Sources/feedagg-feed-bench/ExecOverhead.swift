import CurlHTTP
import ExecSource
import FeedConfig
import FeedCore
import Foundation
import HTTPSource
import LoopbackServer

#if canImport(Glibc)
    import Glibc
#endif

/// An exec plugin's overhead per page, measured as the issue asks: the same 30 items read as one
/// page from an `exec` plugin and from `source: http` (a loopback server serving the same items as
/// JSON), each through the path a pull takes: the feeds.yaml declaration read by `FeedsLoader`,
/// the request sent through the pull's transport (``ExecTransport`` in front of libcurl's
/// ``CurlClient``), the page decoded by the feed's source. The two kinds of page alternate, in
/// rounds, so both see the same machine state; the overhead is the difference of the medians.
enum ExecOverhead {
    /// Median milliseconds per page of each kind.
    struct Result {
        var execMilliseconds: Double
        var httpMilliseconds: Double
        var pages: Int
        var items: Int
        var overhead: Double { execMilliseconds - httpMilliseconds }
    }

    /// The items both sources serve.
    static func items(_ count: Int) -> [(id: Int, title: String, url: String, published: String)] {
        (0..<count).map { ($0, "item \($0)", "https://example.org/\($0)", "2025-11-01T10:00:00Z") }
    }

    /// Runs `pages` pages of each kind (after one warm-up page of each) in a temporary folder.
    static func measure(pages: Int, itemCount: Int = 30) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedagg-exec-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let items = items(itemCount)

        // The plugin: one /bin/sh, builtins only (read, printf), so the page costs one process.
        let lines = items.map {
            #"{"item": {"id": "\#($0.id)", "title": "\#($0.title)", "url": "\#($0.url)", "published": "\#($0.published)"}}"#
        }
        let script =
            "#!/bin/sh\nIFS= read -r request\nprintf '%s\\n' "
            + lines.map { "'" + $0 + "'" }.joined(separator: " \\\n  ") + "\n"
        let pluginPath = folder.appendingPathComponent("plugin.sh").path
        try Data(script.utf8).write(to: URL(fileURLWithPath: pluginPath))
        chmod(pluginPath, 0o755)

        let body = #"{"items": ["#
            + items.map {
                #"{"id": "\#($0.id)", "title": "\#($0.title)", "url": "\#($0.url)", "published": "\#($0.published)"}"#
            }.joined(separator: ", ") + "]}"
        let server = try await LoopbackHTTPServer.start { _ in
            LoopbackResponse(headers: [("Content-Type", "application/json")], text: body)
        }
        let yaml = """
            feeds:
              - name: bench-exec
                source: exec
                command: [\(pluginPath)]
              - name: bench-http
                source: http
                base_url: \(server.baseURL)
                url: "{+base_url}/items"
                items: "$.items"
                fields: { id: "$.id", title: "$.title", url: "$.url", published: "$.published" }
            """
        let feedsPath = folder.appendingPathComponent("feeds.yaml").path
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: feedsPath))
        let document = try FeedsLoader.load(
            path: feedsPath, sources: [ExecSource.descriptor, HTTPSource.descriptor], environment: [:])
        func context(_ name: String, _ baseURL: String) -> FeedContext {
            FeedContext(name: name, baseURL: URL(string: baseURL)!, pageSize: itemCount)
        }
        let execContext = context("bench-exec", "http://exec.invalid")
        let httpContext = context("bench-http", server.baseURL)
        let exec = try ExecSource(feed: execContext, parameters: document.feeds[0].parameters)
        let http = try HTTPSource(feed: httpContext, parameters: document.feeds[1].parameters)
        let client = CurlClient()
        let transport = ExecTransport(
            feeds: [Feed(source: exec, context: execContext), Feed(source: http, context: httpContext)], next: client)

        func page(_ source: any FeedSource) async throws -> Int {
            let request = HTTPRequest(url: source.firstPageURL)
            let response = try await transport.send(request)
            guard response.status == 200 else { throw BenchError("\(source.firstPageURL) answered \(response.status)") }
            let decoded = try source.decodePage(FetchedPage(number: 1, url: request.url, response: response))
            guard decoded.items.count == itemCount else {
                throw BenchError("\(source.firstPageURL) gave \(decoded.items.count) items, not \(itemCount)")
            }
            return decoded.items.count
        }
        let clock = ContinuousClock()
        func timed(_ source: any FeedSource) async throws -> Double {
            let start = clock.now
            _ = try await page(source)
            return (clock.now - start) / .milliseconds(1)
        }
        _ = try await timed(exec)
        _ = try await timed(http)
        var execTimes: [Double] = []
        var httpTimes: [Double] = []
        let round = 10
        for _ in 0..<(pages / round) {
            for _ in 0..<round { execTimes.append(try await timed(exec)) }
            for _ in 0..<round { httpTimes.append(try await timed(http)) }
        }
        client.shutdown()
        try await server.shutdown()
        return Result(
            execMilliseconds: median(execTimes), httpMilliseconds: median(httpTimes), pages: execTimes.count,
            items: itemCount)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// A benchmark that cannot run as set up.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
