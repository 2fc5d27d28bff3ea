import CurlHTTP
import ExecSource
import FeedConfig
import FeedCore
import FeedReplay
import FeedStore
import Foundation
import Synchronization

/// What a pull runs on, built before any feed is fetched: the libcurl client (wrapped in a
/// recorder with `--record`), the pull memory over the store (conditional requests), the progress
/// line and request log, and the engine with the configured retries and rate limits.
///
/// The caller shuts ``client`` down when the pull ends.
struct PullSetup {
    /// The HTTP client every request goes through (directly, or through a recorder).
    let client: CurlClient
    /// The progress line, fed by the engine's events.
    let progress: PullProgress
    let engine: FeedEngine

    /// - Parameters:
    ///   - config: The `settings:` block of feeds.yaml (timeouts, retries, concurrency, rate limits).
    ///   - feeds: The feeds this pull fetches, already sent to `override` when one is given.
    ///   - declaredFeeds: The same feeds with their own base URLs: a recording through `override`
    ///     writes the real origin.
    ///   - override: The origin every feed is sent to instead of its base URL (a replay server, `--base-url`).
    init(
        _ settings: PullSettings, config: FeedsDocument.Settings, feeds: [Feed], declaredFeeds: [Feed],
        override: URL?, store: any StoreDriver, replay: ReplayServer?, console: Console, environment: [String: String]
    ) {
        let client = CurlClient(
            configuration: CurlClient.Configuration(
                connectTimeout: .seconds(config.connectTimeout), totalTimeout: .seconds(config.timeout),
                firstByteTimeout: .seconds(config.firstByteTimeout),
                maxConnectionsPerHost: config.maxConnectionsPerHost, userAgent: config.userAgent))
        var transport: any HTTPTransport = client
        // A recording must hold full responses: no conditional requests, no incremental stops.
        // Replays run on an ephemeral port: cache keys name the recordings, not the port.
        var storeMemory = StorePullMemory(
            store: store, sources: Dictionary(feeds.map { ($0.name, $0.source.typeName) }, uniquingKeysWith: { a, _ in a }),
            originRewrite: replay.map { (Self.origin(of: $0.baseURL), "replay:") },
            onError: { [console] error in console.error("warning: \(error); fetching without the cache") })
        if (2...Self.snapshotFeeds).contains(feeds.count) && settings.recordDirectory == nil {
            // One read for every feed's start instead of two per feed (PostgreSQL; SQLite has none).
            do {
                storeMemory.snapshot = try store.pullMemorySnapshot(feeds: feeds.map(\.name))
            } catch {
                console.error("warning: \(error); reading each feed's cache on its own")
            }
        }
        var memory: (any PullMemory)? = storeMemory
        if let directory = settings.recordDirectory {
            memory = nil
            // Recording through an override (a stand-in server): write the feed's real origin.
            var rewrite: (from: String, to: String)?
            if let override, feeds.count == 1, let real = declaredFeeds.first(where: { $0.name == feeds[0].name }) {
                rewrite = (Self.origin(of: override), Self.origin(of: real.context.baseURL))
            }
            transport = RecordingTransport(
                recording: client, into: URL(fileURLWithPath: directory), originRewrite: rewrite)
        }
        // `source: exec` feeds: their endpoints run the plugins; every other request goes on.
        var execLog: (@Sendable (String) -> Void)?
        if settings.verbose { execLog = { [console] line in console.error(line) } }
        let exec = ExecTransport(
            feeds: feeds, next: transport, log: execLog, stderrLog: PluginStderrLog(storePath: store.location))
        if !exec.isEmpty { transport = exec }
        let progress = PullProgress(totalFeeds: feeds.count)
        var retry = RetryPolicy(
            maxAttempts: config.retries + 1, maxTotalDelay: .milliseconds(Int(config.retryMaxWait * 1000)))
        var rateLimit = RateLimitPolicy(maxWait: .milliseconds(Int(config.rateLimitWait * 1000)))
        rateLimit.sharedPause = settings.sharedPause
        rateLimit.limitMet = settings.limitMet
        if let clock = VirtualClock(environment: environment) {
            retry.sleep = { try clock.sleep($0) }
            rateLimit.now = { clock.now }
            rateLimit.sleep = { try clock.sleep($0) }
        }
        self.client = client
        self.progress = progress
        self.engine = FeedEngine(
            transport: transport, pageConcurrency: config.pageConcurrency,
            events: Self.events(progress: progress, console: console, verbose: settings.verbose, quiet: settings.quiet),
            memory: memory, refresh: settings.refresh, retry: retry, rateLimit: rateLimit)
    }

    /// The engine's callbacks: the progress line counts requests, pages and feeds; `verbose` logs
    /// every request; a rate-limit wait is announced once per limit unless `quiet`.
    static func events(progress: PullProgress, console: Console, verbose: Bool, quiet: Bool) -> PullEvents {
        let announced = Mutex<Set<String>>([])
        return PullEvents(
            requestFinished: { record in
                // Like the summary, the progress line does not count a request the walk cancelled.
                if !record.cancelled { progress.request() }
                if verbose { console.error(Aggregator.describe(record)) }
            },
            pageFinished: { _ in progress.page() },
            feedFinished: { result in progress.feedDone(result.feed) },
            rateLimitWait: { wait in
                // Once per limit (concurrent pages wait for the same one), unless quiet.
                guard !quiet, announced.withLock({ $0.insert(wait.message).inserted }) else { return }
                console.error(wait.message)
            })
    }

    /// The most feeds a pull reads the start of at once (``StoreDriver/pullMemorySnapshot(feeds:)``):
    /// a `feedagg serve` batch (64) always; a larger pull reads each feed's start on its own rather
    /// than hold thousands of cache entries, most of them pages an unchanged feed never reads.
    static let snapshotFeeds = 256

    /// `scheme://host[:port]` of `url`, as cache keys and recordings name origins.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme ?? "https"
        let host = url.host ?? ""
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
