public import FeedCore
public import FeedConfig
public import Foundation
import CurlHTTP
import FeedReplay

/// Exit statuses of `feedagg`, documented in the README.
public enum ExitStatus: Int32, Sendable {
    /// Every feed succeeded.
    case success = 0
    /// An unexpected internal error (I/O on output, …).
    case internalError = 1
    /// Bad command-line usage or configuration: nothing was fetched.
    case usageOrConfig = 2
    /// Some feeds failed; the others were printed.
    case partialFailure = 3
    /// Every feed failed.
    case allFailed = 4
}

/// What a pull produced.
public struct PullReport: Sendable {
    /// Per-feed results, in declaration order.
    public var results: [FeedResult]
    /// The merged stream.
    public var entries: [StreamEntry]

    /// Success, partial failure or total failure.
    public var exitStatus: ExitStatus {
        let failed = results.filter { !$0.succeeded }.count
        if failed == 0 { return .success }
        return failed == results.count ? .allFailed : .partialFailure
    }
}

/// Settings of one `pull`, from the command line.
public struct PullSettings: Sendable {
    /// feeds.yaml path.
    public var configPath: String
    /// Serve recorded exchanges from this folder instead of the network.
    public var replayDirectory: String?
    /// Log every request to standard error.
    public var verbose: Bool
    /// Print no per-feed summary.
    public var quiet: Bool
    /// Record every exchange into this folder (scrubbed), as fixtures.
    public var recordDirectory: String?
    /// Pull only these feeds (all when empty).
    public var onlyFeeds: [String] = []
    /// Send every feed to this origin instead of its base URL (keeping the base URL's path).
    public var baseURLOverride: URL?

    /// Creates settings.
    public init(configPath: String, replayDirectory: String? = nil, verbose: Bool = false, quiet: Bool = false,
        recordDirectory: String? = nil)
    {
        self.configPath = configPath
        self.replayDirectory = replayDirectory
        self.verbose = verbose
        self.quiet = quiet
        self.recordDirectory = recordDirectory
    }
}

/// The application: loads feeds.yaml, builds feeds from the registry, pulls, merges.
public struct Aggregator: Sendable {
    /// Known source types.
    public var registry: SourceRegistry
    /// Where messages go.
    public var console: Console
    /// The process environment (for `${VAR}` interpolation).
    public var environment: [String: String]

    /// Creates an aggregator.
    public init(
        registry: SourceRegistry = .builtIn, console: Console = Console(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.registry = registry
        self.console = console
        self.environment = environment
    }

    /// Loads and validates feeds.yaml, and builds every feed (throws ``ConfigError``).
    public func load(configPath: String, baseURLOverride: URL? = nil) throws -> (FeedsDocument, [Feed]) {
        let document = try FeedsLoader.load(path: configPath, sources: registry.descriptors, environment: environment)
        let feeds = try document.feeds.map { declaration in
            try registry.makeFeed(
                name: declaration.name, sourceType: declaration.sourceType, parameters: declaration.parameters,
                baseURLOverride: baseURLOverride)
        }
        return (document, feeds)
    }

    /// Runs a pull: configuration, transport (libcurl, or a replay server), engine, merge.
    public func pull(_ settings: PullSettings) async throws -> PullReport {
        var replay: ReplayServer?
        if let directory = settings.replayDirectory {
            replay = try await ReplayServer.start(directory: directory)
        }
        do {
            let report = try await pull(settings, replay: replay)
            try await replay?.shutdown()
            return report
        } catch {
            try? await replay?.shutdown()
            throw error
        }
    }

    private func pull(_ settings: PullSettings, replay: ReplayServer?) async throws -> PullReport {
        let override = replay?.baseURL ?? settings.baseURLOverride
        var (document, feeds) = try load(configPath: settings.configPath, baseURLOverride: override)
        if !settings.onlyFeeds.isEmpty {
            for name in settings.onlyFeeds where !feeds.contains(where: { $0.name == name }) {
                throw ConfigError(
                    "no feed named '\(name)' in \(settings.configPath)", at: nil,
                    notes: ["declared feeds: \(feeds.map(\.name).joined(separator: ", "))"])
            }
            feeds = feeds.filter { settings.onlyFeeds.contains($0.name) }
        }
        if settings.verbose {
            for warning in document.warnings { console.error(warning) }
        }
        let config = document.settings
        let client = CurlClient(
            configuration: CurlClient.Configuration(
                connectTimeout: .seconds(config.connectTimeout), totalTimeout: .seconds(config.timeout),
                maxConnectionsPerHost: config.maxConnectionsPerHost, userAgent: config.userAgent))
        defer { client.shutdown() }
        var transport: any HTTPTransport = client
        if let directory = settings.recordDirectory {
            // Recording through an override (a stand-in server): write the feed's real origin.
            var rewrite: (from: String, to: String)?
            if let override, feeds.count == 1, let real = try? load(configPath: settings.configPath).1
                .first(where: { $0.name == feeds[0].name })
            {
                rewrite = (Self.origin(of: override), Self.origin(of: real.context.baseURL))
            }
            transport = RecordingTransport(
                recording: client, into: URL(fileURLWithPath: directory), originRewrite: rewrite)
        }

        let progress = PullProgress(totalFeeds: feeds.count)
        let console = self.console
        let verbose = settings.verbose
        let quiet = settings.quiet
        let events = PullEvents(
            requestFinished: { record in
                progress.request()
                if verbose { console.error(Self.describe(record)) }
            },
            pageFinished: { _ in progress.page() },
            feedFinished: { result in
                progress.feedDone()
                if let error = result.error {
                    console.error("✗ \(error)")
                } else if !quiet {
                    console.error(Self.summary(result))
                }
                if !quiet { for note in result.notes { console.error("  note: feed '\(result.feed)': \(note)") } }
            })
        let engine = FeedEngine(transport: transport, pageConcurrency: config.pageConcurrency, events: events)
        let selected = feeds
        let results = await withTaskGroup(of: [FeedResult]?.self) { group in
            group.addTask { await engine.pull(selected) }
            group.addTask {
                if !quiet { await progress.display(on: console) }
                return nil
            }
            var results: [FeedResult] = []
            for await value in group {
                if let value {
                    results = value
                    progress.finish()
                    group.cancelAll()
                }
            }
            return results
        }
        let entries = UnifiedStream.merge(
            results.map { UnifiedStream.Input(feed: $0.feed, source: $0.source, items: $0.items) })
        return PullReport(results: results, entries: entries)
    }

    static func origin(of url: URL) -> String {
        let scheme = url.scheme ?? "https"
        let host = url.host ?? ""
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    /// `GET <url> → 200 · 5123 B · 52 ms` (secrets already redacted by the engine).
    public static func describe(_ record: RequestRecord) -> String {
        let ms = Int((Double(record.duration.components.attoseconds) / 1e15).rounded())
            + Int(record.duration.components.seconds) * 1000
        if let failure = record.failure {
            return "\(record.method) \(record.url) → failed after \(ms) ms: \(failure)"
        }
        let status = record.status.map(String.init) ?? "-"
        return "\(record.method) \(record.url) → \(status) · \(record.bytes) B · \(ms) ms"
            + (record.fromCache ? " · from cache" : " · network") + " [\(record.feed)]"
    }

    /// `✓ name (source): N items, P pages, R requests, 0.21 s`.
    public static func summary(_ result: FeedResult) -> String {
        let seconds = Double(result.duration.components.seconds) + Double(result.duration.components.attoseconds) / 1e18
        return "✓ \(result.feed) (\(result.source)): \(result.items.count) items, \(result.pages) pages, "
            + "\(result.requests) requests, \(String(format: "%.2f", seconds)) s"
    }
}
