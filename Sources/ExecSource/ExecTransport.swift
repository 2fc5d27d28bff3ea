public import FeedCore
import Foundation

/// The transport of a pull with exec feeds: a request for an exec feed's endpoint runs its
/// plugin; every other request goes to `next` (libcurl).
///
/// The plugin's answer becomes a response the engine handles like any other: status 200 with the
/// plugin's standard output as the body (``ExecSource`` decodes it), `304 Not Modified` when the
/// plugin printed `{"not_modified": true}`, and an `ETag` header when it printed `{"etag": …}`,
/// so conditional requests, retries, the store and merging apply unchanged. A plugin that exits
/// non-zero, runs past its timeout, floods its output or cannot be run is a ``TransportError``
/// saying what happened, with the tail of its standard error (environment values redacted).
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
            throw TransportError(kind: .badResponse, url: request.url, detail: Self.exitDetail(run, errors: errors))
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

    /// `the plugin exited with status 3; stderr: …` or `the plugin was killed by signal 9 (Killed)`.
    static func exitDetail(_ run: ExecRunner.Run, errors: String) -> String {
        let how = run.signaled ? "was killed by signal \(ExecRunner.signalName(run.status))" : "exited with status \(run.status)"
        return "the plugin \(how)" + tail(errors)
    }

    /// `; stderr: <last 500 characters of stderr, on one line>`, or nothing.
    static func tail(_ errors: String) -> String {
        let trimmed = errors.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return "" }
        let last = trimmed.count > 500 ? "…" + trimmed.suffix(500) : Substring(trimmed)
        return "; stderr: " + last.split(whereSeparator: \.isNewline).joined(separator: " | ")
    }
}

extension ExecRunner.Failure {
    /// The transport failure it is: a timeout is retried like a network one; a plugin that is
    /// missing or not executable is not (``TransportError/Kind/cannotRun``).
    var kind: TransportError.Kind {
        switch self {
        case .timedOut: .timedOut
        case .outputTooLarge: .responseTooLarge
        case .cancelled: .cancelled
        case .notFound, .notExecutable, .badFormat: .cannotRun
        case .cannotStart, .textFileBusy: .other
        }
    }

    /// What happened, in the plugin's terms (the feed and the command are named by the error that
    /// carries it: ``ExecSource/requestDescription(for:)``).
    func detail(_ plugin: ExecPlugin) -> String {
        switch self {
        case .timedOut:
            return "the plugin ran longer than its timeout of \(plugin.timeout) and was killed (with its process group)"
        case .outputTooLarge:
            return "the plugin wrote more than \(plugin.maxOutputBytes) bytes of output for one page and was killed"
        case .notFound(let what):
            return "not found: \(plugin.secrets.redact(what))"
        case .notExecutable(let path):
            return "not executable (permission denied): \(plugin.secrets.redact(path))"
        case .badFormat(let path):
            return "not an executable format (a script needs a #! line): \(plugin.secrets.redact(path))"
        case .cannotStart(let reason):
            return "the plugin could not be started: \(plugin.sanitized(reason))"
        case .textFileBusy:
            return "the plugin could not be started: the executable is busy"
        case .cancelled:
            return "the run was cancelled and the plugin killed"
        }
    }
}
