public import FeedCore
import Foundation

/// The transport of a pull with exec feeds: a request for an exec feed's endpoint runs its
/// plugin; every other request goes to `next` (libcurl).
///
/// The plugin's answer becomes a response the engine handles like any other: status 200 with the
/// plugin's standard output as the body (``ExecSource`` decodes it), `304 Not Modified` when the
/// plugin printed `{"not_modified": true}`, and an `ETag` header when it printed `{"etag": …}`,
/// so conditional requests, retries, the store and merging apply unchanged. A plugin that exits
/// non-zero, runs past its timeout or floods its output is a ``TransportError`` naming the feed,
/// with the tail of its standard error (environment values redacted).
public struct ExecTransport: HTTPTransport {
    /// The plugins by their endpoint (the URL without its query).
    private let plugins: [String: ExecPlugin]
    /// Where every other request goes.
    private let next: any HTTPTransport
    /// Where a plugin's standard error goes after a page that succeeded (`--verbose`), or `nil`.
    private let log: (@Sendable (String) -> Void)?
    /// Where each run's standard error is kept per feed (beside the store), or `nil`.
    private let stderrLog: PluginStderrLog?

    /// A transport running the plugins of `feeds` (their sources that are ``ExecSource``s) and
    /// sending the rest through `next`. `log` receives, after each successful page whose plugin
    /// wrote to standard error, `plugin of feed 'x' (page N) stderr: …` (sanitized, secrets
    /// redacted); failed pages carry their stderr in the error instead. `stderrLog` keeps the
    /// standard error of each feed's last plugin run that exited (sanitized, its last 64 KiB).
    public init(
        feeds: [Feed], next: any HTTPTransport, log: (@Sendable (String) -> Void)? = nil,
        stderrLog: PluginStderrLog? = nil
    ) {
        var plugins: [String: ExecPlugin] = [:]
        for feed in feeds {
            guard let source = feed.source as? ExecSource else { continue }
            plugins[Self.key(source.firstPageURL)] = source.plugin
        }
        self.plugins = plugins
        self.next = next
        self.log = log
        self.stderrLog = stderrLog
    }

    /// Whether any feed runs a plugin.
    public var isEmpty: Bool { plugins.isEmpty }

    static func key(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.query = nil
        components?.fragment = nil
        return components?.string ?? url.absoluteString
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let plugin = plugins[Self.key(request.url)] else { return try await next.send(request) }
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: true)?.queryItems ?? []
        let cursor = query.last { $0.name == "cursor" }?.value
        let page = cursor == nil ? 1 : nil
        let input = plugin.request(
            page: page, cursor: cursor, etag: request.headers["If-None-Match"],
            lastModified: request.headers["If-Modified-Since"])
        let run: ExecRunner.Run
        do {
            run = try await ExecRunner.run(plugin, input: input)
        } catch {
            throw TransportError(kind: error.kind, url: request.url, detail: error.detail(plugin))
        }
        let errors = plugin.sanitized(run.errors)
        stderrLog?.record(errors, feed: plugin.feedName)
        guard run.status == 0, !run.signaled else {
            let how = run.signaled ? "was killed by signal \(run.status)" : "exited with status \(run.status)"
            throw TransportError(
                kind: .badResponse, url: request.url,
                detail: "plugin of feed '\(plugin.feedName)' (\(plugin.command[0])) \(how)" + Self.tail(errors))
        }
        var headers: HTTPHeaders = ["Content-Type": "application/x-ndjson"]
        let control = ExecLines.control(in: run.output)
        if let etag = control.etag { headers.set("ETag", etag) }
        if let log, !errors.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            let which = cursor.map { "cursor \($0)" } ?? "page 1"
            log("plugin of feed '\(plugin.feedName)' (\(which))\(Self.tail(errors))")
        }
        return HTTPResponse(
            status: control.notModified ? 304 : 200, headers: headers, body: control.notModified ? Data() : run.output,
            url: request.url)
    }

    /// `: <last 500 characters of stderr, on one line>`, or nothing.
    static func tail(_ errors: String) -> String {
        let trimmed = errors.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return "" }
        let last = trimmed.count > 500 ? "…" + trimmed.suffix(500) : Substring(trimmed)
        return "; stderr: " + last.split(whereSeparator: \.isNewline).joined(separator: " | ")
    }
}

extension ExecRunner.Failure {
    var kind: TransportError.Kind {
        switch self {
        case .timedOut: .timedOut
        case .outputTooLarge: .responseTooLarge
        case .cannotStart, .textFileBusy: .other
        }
    }

    func detail(_ plugin: ExecPlugin) -> String {
        let name = "plugin of feed '\(plugin.feedName)' (\(plugin.command[0]))"
        switch self {
        case .timedOut:
            return "\(name) ran longer than its timeout of \(plugin.timeout) and was killed"
        case .outputTooLarge:
            return "\(name) wrote more than \(plugin.maxOutputBytes) bytes of output for one page and was killed"
        case .cannotStart(let reason):
            return "\(name) could not be run: \(plugin.sanitized(reason))"
        case .textFileBusy:
            return "\(name) could not be run: the executable is busy"
        }
    }
}
