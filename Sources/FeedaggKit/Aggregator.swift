public import FeedCore
public import FeedConfig
public import Foundation
public import FeedStore
import CurlHTTP
import Synchronization
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
    /// The store could not be used (locked by another process past the wait, damaged, unwritable);
    /// nothing in it was changed.
    case storeUnavailable = 5
}

/// What a pull produced.
public struct PullReport: Sendable {
    /// Per-feed results, in declaration order. Their ``FeedResult/items`` are empty once committed
    /// (the store holds them) unless ``PullSettings/retainItems`` is set.
    public var results: [FeedResult]
    /// What each feed's commit did to the store, by feed name (absent when the commit failed).
    public var commits: [String: CommitSummary]
    /// Feeds whose commit failed, with the store's message.
    public var storeFailures: [String: StoreError]
    /// The requested page of the unified stream, read back from the store.
    public var page: StoredStreamPage
    /// The store the pull wrote (removed again when it was temporary).
    public var storePath: String
    /// What a `--limit` pull found: the newest items and how each feed was walked (`nil` otherwise).
    public var newest: NewestItems?

    /// Success, partial failure or total failure.
    public var exitStatus: ExitStatus {
        let failed = results.filter { !$0.succeeded || storeFailures[$0.feed] != nil }.count
        if failed == 0 { return .success }
        return failed == results.count ? .allFailed : .partialFailure
    }
}

/// Where a command keeps its store.
public enum StoreLocation: Sendable, Equatable {
    /// `$XDG_DATA_HOME/feedagg/feedagg.sqlite`, else `~/.local/share/feedagg/feedagg.sqlite`.
    case standard
    /// This file (`--db FILE`).
    case file(String)
    /// A fresh store in a temporary directory, removed after the command (replays and recordings
    /// without `--db`, so they neither read nor touch the user's store).
    case temporary

    /// The path for `environment`, creating the temporary directory if needed.
    func resolve(environment: [String: String]) throws -> (path: String, temporaryDirectory: URL?) {
        switch self {
        case .standard:
            return (try FeedStore.defaultPath(environment: environment), nil)
        case .file(let path):
            return (path, nil)
        case .temporary:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "feedagg-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
            return (directory.appendingPathComponent("feedagg.sqlite").path, directory)
        }
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
    /// The store; `nil` means ``StoreLocation/standard``, or ``StoreLocation/temporary`` when
    /// replaying or recording.
    public var store: StoreLocation?
    /// Incremental (default) or full (`--full`).
    public var refresh: RefreshMode = .incremental
    /// The page of the unified stream to read back after the pull.
    public var page: Int = 1
    /// Entries per page.
    public var perPage: Int = 20
    /// Keep each result's items in the report (tests); by default they are dropped once committed,
    /// so memory is bounded by the feeds in flight, not by everything pulled.
    public var retainItems = false
    /// `--limit N`: fetch only the pages needed to know the `N` newest items, store what was fetched
    /// (as a limited pull), and print those items instead of a page of the stored stream.
    public var limit: Int?

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

    /// The store location in effect.
    public var effectiveStore: StoreLocation {
        store ?? (replayDirectory != nil || recordDirectory != nil ? .temporary : .standard)
    }
}

/// The application: loads feeds.yaml, builds feeds from the registry, pulls into the store, reads
/// the unified stream back.
public struct Aggregator: Sendable {
    /// Known source types.
    public var registry: SourceRegistry
    /// Where messages go.
    public var console: Console
    /// The process environment (for `${VAR}` interpolation and the store's default location).
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
        return (document, try feeds(of: document, baseURLOverride: baseURLOverride))
    }

    /// Builds every feed `document` declares, sent to `baseURLOverride` when given.
    public func feeds(of document: FeedsDocument, baseURLOverride: URL? = nil) throws -> [Feed] {
        try document.feeds.map { declaration in
            try registry.makeFeed(
                name: declaration.name, sourceType: declaration.sourceType, parameters: declaration.parameters,
                baseURLOverride: baseURLOverride)
        }
    }

    /// Opens the store at `location` (throws ``StoreError``); returns it and the temporary directory
    /// to remove afterwards, if any.
    public func openStore(_ location: StoreLocation) throws -> (FeedStore, URL?) {
        let (path, temporary) = try location.resolve(environment: environment)
        do {
            return (try FeedStore.open(path: path), temporary)
        } catch {
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
            throw error
        }
    }

    /// Runs a pull: configuration, store, transport (libcurl, or a replay server), engine, one
    /// commit per feed as it finishes, then the requested page of the unified stream.
    public func pull(_ settings: PullSettings) async throws -> PullReport {
        // Configuration errors come first: nothing is opened or fetched for a bad feeds.yaml.
        let (document, declaredFeeds) = try load(configPath: settings.configPath)
        let (store, temporary) = try openStore(settings.effectiveStore)
        defer {
            try? store.close()
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
        }
        var replay: ReplayServer?
        if let directory = settings.replayDirectory {
            replay = try await ReplayServer.start(directory: directory)
        }
        do {
            let report = try await pull(
                settings, document: document, declaredFeeds: declaredFeeds, store: store, replay: replay)
            try await replay?.shutdown()
            return report
        } catch {
            try? await replay?.shutdown()
            throw error
        }
    }

    /// The pull itself; `declaredFeeds` are built with their own base URLs (the real origins).
    private func pull(
        _ settings: PullSettings, document: FeedsDocument, declaredFeeds: [Feed], store: FeedStore,
        replay: ReplayServer?
    ) async throws -> PullReport {
        let override = replay?.baseURL ?? settings.baseURLOverride
        var feeds = try override.map { try self.feeds(of: document, baseURLOverride: $0) } ?? declaredFeeds
        let declared = feeds.map(\.name)
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
                firstByteTimeout: .seconds(config.firstByteTimeout),
                maxConnectionsPerHost: config.maxConnectionsPerHost, userAgent: config.userAgent))
        defer { client.shutdown() }
        var transport: any HTTPTransport = client
        // A recording must hold full responses: no conditional requests, no incremental stops.
        // Replays run on an ephemeral port: cache keys name the recordings, not the port.
        var memory: (any PullMemory)? = StorePullMemory(
            store: store, sources: Dictionary(feeds.map { ($0.name, $0.source.typeName) }, uniquingKeysWith: { a, _ in a }),
            originRewrite: replay.map { (Self.origin(of: $0.baseURL), "replay:") },
            onError: { [console] error in console.error("warning: \(error); fetching without the cache") })
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
            feedFinished: { _ in progress.feedDone() })
        let engine = FeedEngine(
            transport: transport, pageConcurrency: config.pageConcurrency, events: events, memory: memory,
            refresh: settings.refresh,
            retry: RetryPolicy(
                maxAttempts: config.retries + 1, maxTotalDelay: .milliseconds(Int(config.retryMaxWait * 1000))),
            rateLimit: RateLimitPolicy(maxWait: .milliseconds(Int(config.rateLimitWait * 1000))))
        if let limit = settings.limit {
            return try await pullNewest(
                limit, feeds: feeds, declared: declared, engine: engine, store: store, settings: settings,
                progress: progress)
        }
        let selected = feeds
        let retain = settings.retainItems
        typealias Outcome = (index: Int, result: FeedResult, commit: Result<CommitSummary, StoreError>)
        // Replays and recordings run against stand-in origins: they never continue a stored pull.
        let restart = settings.refresh == .full || replay != nil || settings.recordDirectory != nil
        let outcomes = await withTaskGroup(of: Outcome?.self) { group in
            for (index, feed) in selected.enumerated() {
                group.addTask {
                    var (result, commit) = await Self.pull(
                        feed, engine: engine, store: store, restart: restart, retain: retain, quiet: quiet,
                        console: console)
                    if !retain { result.items = [] }
                    return (index, result, commit)
                }
            }
            if selected.isEmpty { progress.finish() }
            group.addTask {
                if !quiet { await progress.display(on: console) }
                return nil
            }
            var outcomes: [Outcome] = []
            for await outcome in group {
                guard let outcome else { continue }
                outcomes.append(outcome)
                if outcomes.count == selected.count {
                    progress.finish()
                    group.cancelAll()
                }
            }
            return outcomes.sorted { $0.index < $1.index }
        }
        var commits: [String: CommitSummary] = [:]
        var failures: [String: StoreError] = [:]
        for outcome in outcomes {
            switch outcome.commit {
            case .success(let summary): commits[outcome.result.feed] = summary
            case .failure(let error): failures[outcome.result.feed] = error
            }
        }
        let page = try await Self.offPool {
            try store.placeUndatedItems(feedOrder: declared)
            return try store.stream(feeds: declared, page: settings.page, perPage: settings.perPage)
        }
        return PullReport(
            results: outcomes.map(\.result), commits: commits, storeFailures: failures, page: page,
            storePath: store.path)
    }

    /// Pulls one feed into the store page by page: claims it (or continues an interrupted pull of
    /// it), stages every page as the engine accepts it, then commits the feed in one transaction.
    static func pull(
        _ feed: Feed, engine: FeedEngine, store: FeedStore, restart: Bool, retain: Bool, quiet: Bool,
        console: Console
    ) async -> (FeedResult, Result<CommitSummary, StoreError>) {
        let fingerprint = [
            feed.source.typeName, Redaction.redact(feed.source.firstPageURL), String(feed.context.pageSize),
        ].joined(separator: " ")
        let start: PullStart
        do {
            start = try await offPool {
                try store.beginPull(
                    feed: feed.name, source: feed.source.typeName, fingerprint: fingerprint, restart: restart)
            }
        } catch {
            let failure = error as? StoreError
                ?? StoreError(kind: .database, path: store.path, operation: "begin", detail: "\(error)")
            let result = FeedResult(
                feed: feed.name, source: feed.source.typeName, items: [], pages: 0, requests: 0,
                error: FeedError(feed: feed.name, url: nil, page: nil, reason: .notSaved(failure.description)),
                notes: [], duration: .zero)
            report(result, commit: .failure(failure), saveTime: .zero, quiet: quiet, on: console)
            return (result, .failure(failure))
        }
        var ticket: PullTicket
        var resume: ResumePoint?
        switch start {
        case .busy(let owner):
            var result = FeedResult(
                feed: feed.name, source: feed.source.typeName, items: [], pages: 0, requests: 0, error: nil,
                notes: [], duration: .zero)
            result.unchanged = true
            if !quiet {
                console.error(
                    "↷ \(feed.name) (\(feed.source.typeName)): skipped, another feedagg process (pid \(owner.pid)) "
                        + "is pulling this feed right now; its items are saved when it finishes")
            }
            return (result, .success(CommitSummary()))
        case .fresh(let claimed):
            ticket = claimed
        case .resume(let claimed, let point, _):
            ticket = claimed
            resume = restoringSecrets(point, from: feed.source.firstPageURL)
            if resume == nil {
                // A secret the stored URLs need is gone from the configuration: start over.
                if case .fresh(let restarted)? = try? await offPool({
                    try store.beginPull(feed: feed.name, source: feed.source.typeName, fingerprint: fingerprint, restart: true)
                }) {
                    ticket = restarted
                }
            }
        }
        let claim = ticket
        let sink = StorePageSink(store: store, ticket: claim, retain: retain)
        var result = await engine.pull(feed, resumingAt: resume, sink: sink)
        if let failure = await sink.drain(), result.error == nil || !(result.error?.reason.isNotSaved ?? false) {
            // A page that could not be written ends the feed's pull there, like any failure.
            result.error = FeedError(feed: feed.name, url: nil, page: nil, reason: .notSaved(failure.description))
        }
        let tally = sink.tally.withLock { $0 }
        if retain { result.items = tally.items }
        let saving = ContinuousClock.now
        let keepResume = result.error.map(\.reason.isResumable) ?? false
        let commit: Result<CommitSummary, StoreError>
        do {
            let record = FeedPull(result)
            var summary = try await offPool {
                try store.finishPull(record, ticket: claim, keepResume: keepResume)
            }
            summary.inserted = tally.summary.inserted
            summary.updated = tally.summary.updated
            summary.unchanged = tally.summary.unchanged
            commit = .success(summary)
        } catch {
            commit = .failure(
                error as? StoreError
                    ?? StoreError(kind: .database, path: store.path, operation: "commit", detail: "\(error)"))
        }
        report(result, commit: commit, saveTime: ContinuousClock.now - saving, quiet: quiet, on: console)
        return (result, commit)
    }

    /// `point` with the secret query values of its URLs put back from the feed's first page URL
    /// (the store keeps them redacted); `nil` when one cannot be restored.
    static func restoringSecrets(_ point: ResumePoint, from original: URL) -> ResumePoint? {
        var restored = point
        var urls: [URL] = []
        for url in point.urls {
            guard let url = Redaction.restore(url.absoluteString, secretsFrom: original) else { return nil }
            urls.append(url)
        }
        restored.urls = urls
        restored.visited = point.visited.map {
            Redaction.restore($0, secretsFrom: original)?.absoluteString ?? $0
        }
        return restored
    }

    /// Runs blocking work (SQLite) on a global dispatch queue, keeping the cooperative pool free.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Prints the feed's summary line (or its failure) once it is committed.
    static func report(
        _ result: FeedResult, commit: Result<CommitSummary, StoreError>, saveTime: Duration, quiet: Bool,
        on console: Console
    ) {
        if case .failure(let error) = commit {
            console.error("✗ feed '\(result.feed)': not saved: \(error)")
            return
        }
        if let error = result.error {
            let kept = (try? commit.get()).map { $0.inserted + $0.updated + $0.unchanged } ?? 0
            var remarks: [String] = []
            if kept > 0 { remarks.append("the \(kept) items fetched before the failure are saved") }
            if let page = resumePage(of: result) { remarks.append("the next pull resumes at page \(page)") }
            console.error("✗ \(error)" + (remarks.isEmpty ? "" : " (" + remarks.joined(separator: "; ") + ")"))
        } else if !quiet {
            console.error(summary(result, commit: try? commit.get(), saveTime: saveTime))
        }
        if !quiet { for note in result.notes { console.error("  note: feed '\(result.feed)': \(note)") } }
    }

    /// The page the next pull of a failed feed starts at, when it resumes rather than starting over:
    /// the failure is worth resuming and the walk got past page 1 (or was itself resumed).
    static func resumePage(of result: FeedResult) -> Int? {
        // After a write failure the saved pages end earlier than the fetched ones: say nothing.
        guard let error = result.error, error.reason.isResumable, !error.reason.isNotSaved,
            result.pages > 0 || result.resumedAtPage != nil
        else { return nil }
        return (result.resumedAtPage ?? 1) + result.pages
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

    /// `✓ name (source): N items (n new, u updated), P pages, R requests, 0.21 s`, or
    /// `✓ name (source): unchanged (304), 1 request, 0.05 s`.
    public static func summary(_ result: FeedResult, commit: CommitSummary? = nil, saveTime: Duration? = nil) -> String {
        func seconds(_ duration: Duration) -> String {
            String(format: "%.2f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        }
        var time = seconds(result.duration) + " s"
        if let saveTime, !result.unchanged { time += " + \(seconds(saveTime)) s to save" }
        let requests = "\(result.requests) request" + (result.requests == 1 ? "" : "s")
        if result.unchanged {
            return "✓ \(result.feed) (\(result.source)): unchanged since the last pull (304), \(requests), \(time)"
        }
        var line = "✓ \(result.feed) (\(result.source)): \(max(result.itemCount, result.items.count)) items"
        if let commit { line += " (\(commit.inserted) new, \(commit.updated) updated)" }
        line += ", \(result.pages) pages, \(requests), \(time)"
        if let page = result.stoppedAtStoredPage {
            line += "; stopped after page \(page): the older items are already stored"
        }
        if let watermark = result.watermark { line += "; asked only for items updated since \(ISO8601.string(from: watermark))" }
        if let page = result.resumedAtPage { line += "; resumed at page \(page), where the last pull stopped" }
        return line
    }
}

/// Writes each page of one feed into the store as the engine accepts it (see
/// ``FeedStore/stagePage(_:ticket:)``), off the cooperative pool, and tallies what it did.
///
/// Writes are pipelined: `accept` queues the page's write behind the previous one (so pages land
/// in page order) and returns at once, letting the walk fetch on while SQLite writes; it waits only
/// when ``maxPending`` writes are queued, which bounds the pages held in memory. A failed write
/// fails every later `accept`, and ``drain()`` reports it once the walk is over.
final class StorePageSink: PageSink, Sendable {
    struct Tally: Sendable {
        var summary = CommitSummary()
        var items: [FeedItem] = []
    }

    struct Pipeline: Sendable {
        var writes: [Task<Void, Never>] = []
        var failure: StoreError?
    }

    let store: FeedStore
    let ticket: PullTicket
    /// Keep the items too (``PullSettings/retainItems``).
    let retain: Bool
    /// Page writes queued at most before `accept` waits.
    let maxPending: Int
    let tally = Mutex(Tally())
    let pipeline = Mutex(Pipeline())

    init(store: FeedStore, ticket: PullTicket, retain: Bool, maxPending: Int = 4) {
        self.store = store
        self.ticket = ticket
        self.retain = retain
        self.maxPending = max(1, maxPending)
    }

    func accept(_ page: AcceptedPage, of feed: Feed) async throws {
        // Back-pressure: wait for the oldest queued write while too many are queued.
        while let oldest = pipeline.withLock({ $0.writes.count >= maxPending ? $0.writes.removeFirst() : nil }) {
            await oldest.value
        }
        if let failure = pipeline.withLock({ $0.failure }) { throw failure }
        pipeline.withLock { state in
            let previous = state.writes.last
            state.writes.append(Task { await self.write(page, after: previous) })
        }
    }

    /// Writes `page` once the write before it is done, unless a write already failed.
    private func write(_ page: AcceptedPage, after previous: Task<Void, Never>?) async {
        await previous?.value
        guard pipeline.withLock({ $0.failure }) == nil else { return }
        let store = self.store
        let ticket = self.ticket
        do {
            let summary = try await Aggregator.offPool { try store.stagePage(page, ticket: ticket) }
            let retain = self.retain
            tally.withLock { tally in
                tally.summary.inserted += summary.inserted
                tally.summary.updated += summary.updated
                tally.summary.unchanged += summary.unchanged
                if retain { tally.items += page.items }
            }
        } catch {
            let failure =
                error as? StoreError
                ?? StoreError(kind: .database, path: store.path, operation: "save a page", detail: "\(error)")
            pipeline.withLock { $0.failure = $0.failure ?? failure }
        }
    }

    /// Waits for every queued write; the first write failure, if any.
    func drain() async -> StoreError? {
        while let next = pipeline.withLock({ $0.writes.isEmpty ? nil : $0.writes.removeFirst() }) {
            await next.value
        }
        return pipeline.withLock { $0.failure }
    }
}
