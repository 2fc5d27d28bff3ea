import FeedaggKit
import FeedConfig
import FeedCore
import FeedStore
import Foundation
import Metrics
import ServiceLifecycle
import UnixSignals

/// Pulls each feed of the running configuration on its own interval, as a service of the
/// server's `ServiceGroup` (docs/serve.md).
///
/// - At start, a feed that was never pulled, whose last pull was interrupted, or whose interval
///   has passed since its last pull is pulled at once; the others when their interval has passed.
/// - After a pull the next one is due an `interval` later, with ±10 % jitter; after a failure the
///   delay doubles with every failure in a row (at most 64 × the interval, at most a day unless the
///   interval is longer), and never ends before the reset of a rate limit that stopped the feed.
/// - Feeds that fall due together are pulled together, by one ``Aggregator/pull(_:document:declaredFeeds:)``
///   (the `pull` path: conditional requests, resume, the store's cross-process claim). A feed is
///   never pulled twice at once.
/// - ``requestRefresh(_:)`` makes feeds due now (`POST /api/refresh`); SIGHUP reloads feeds.yaml.
/// - On graceful shutdown (SIGTERM, SIGINT) running pulls are cancelled: each stops at its next
///   request with every page already fetched saved, and the next start resumes it.
///
/// Delays are multiplied by ``ServeSettings/intervalScale`` (tests compress minutes into
/// milliseconds); a rate limit's reset is a time on the server's clock and is never scaled.
///
/// With a ``SharedSchedule`` (the store is PostgreSQL) the due times live in the database instead,
/// shared with every other `feedagg serve` on it: see `PullScheduler+Shared.swift` and
/// docs/worker-coordination.md.
actor PullScheduler: Service {
    let aggregator: Aggregator
    let settings: ServeSettings
    let configuration: ConfigurationBox
    private let hangups: UnixSignalsSequence?
    private let readiness: ServerReadiness
    /// The schedule shared with other workers through PostgreSQL, if any.
    let shared: (any SharedSchedule)?
    /// The store every pull uses, opened once (PostgreSQL: a pool for the process instead of a
    /// connection set-up per pull), with the `keep_raw` it was opened with; `nil`: each pull opens
    /// the store itself (SQLite).
    let lentStore: (store: any StoreDriver, keepRaw: Bool)?
    /// Called when a batch of pulls ends, before its outcome is recorded (before a status reads it
    /// as finished): what it committed is in the store (``ChangeNumberWatch/wrote()``).
    let wrote: @Sendable () -> Void
    /// What this worker holds of the shared schedule (unused without one).
    var sharedState = SharedState()
    var feeds: [String: FeedSchedule] = [:]
    private var latestRequest = 0
    /// Whether the schedule exists: set at start (SQLite), or once this worker joined the shared
    /// schedule. The server answers before that, and a refresh asked for meanwhile waits here.
    private var scheduleReady = false
    /// The feeds of refresh requests that came before the schedule existed (empty list: every feed).
    private var pendingRefresh: [String]?
    /// Refresh requests being registered (their feeds made due: in the database on PostgreSQL, a
    /// round trip during which other calls run): the status is not done meanwhile.
    private var refreshesRegistering = 0
    private var wake: AsyncStream<Event>.Continuation?
    let clock = ContinuousClock()

    /// What the loop reacts to.
    enum Event: Sendable {
        /// Time passed: start what fell due.
        case tick
        /// A refresh was asked for.
        case wake
        /// SIGHUP.
        case reload
        /// A batch of pulls ended.
        case finished(PullBatchOutcome)
        /// Graceful shutdown.
        case shutdown
        /// A heartbeat counted the live workers (shared schedule).
        case workers(Int)
    }

    /// Creates the scheduler; it starts pulling once `readiness` says the server listens.
    init(
        aggregator: Aggregator, settings: ServeSettings, configuration: ConfigurationBox, hangups: UnixSignalsSequence?,
        readiness: ServerReadiness, shared: (any SharedSchedule)? = nil,
        lentStore: (store: any StoreDriver, keepRaw: Bool)? = nil, wrote: @escaping @Sendable () -> Void = {}
    ) {
        self.shared = shared
        self.lentStore = lentStore
        self.wrote = wrote
        self.aggregator = aggregator
        self.settings = settings
        self.configuration = configuration
        self.hangups = hangups
        self.readiness = readiness
    }

    func run() async throws {
        // Nothing is fetched for a server that could not listen (the group is cancelled then).
        guard await readiness.wait() else {
            await shared?.stop()
            return
        }
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        wake = continuation
        if shared == nil {
            scheduleAtStart(configuration.current, now: clock.now)
            await scheduleDidStart()
        } else {
            await startShared()
        }
        let tick = Duration.seconds(max(0.01, settings.intervalScale))
        let hangups = self.hangups
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: tick)
                        continuation.yield(.tick)
                    }
                }
                if let hangups {
                    group.addTask {
                        for await _ in hangups { continuation.yield(.reload) }
                    }
                }
                if let shared {
                    // Renews this worker's leases three times per lease timeout.
                    let period = shared.leaseTimeout / 3
                    group.addTask {
                        while !Task.isCancelled {
                            if let live = try? await shared.heartbeat() { continuation.yield(.workers(live)) }
                            try? await Task.sleep(for: period)
                        }
                    }
                    // A refresh asked for through any worker wakes every worker at once (ticks
                    // look for due feeds at most once per poll period).
                    group.addTask {
                        await shared.watchDue { continuation.yield(.wake) }
                    }
                }
                continuation.yield(.tick)
                for await event in events {
                    if case .shutdown = event { break }
                    await handle(event)
                    let batches = shared == nil ? startDue() : await leaseDue(after: event)
                    for batch in batches {
                        let configuration = self.configuration.current
                        let aggregator = self.aggregator
                        let settings = self.settings
                        let share = connectionsPerHost(configuration)
                        // Not lent when a reload changed keep_raw: the pull opens the store with the new one.
                        let lent = lentStore.flatMap { $0.keepRaw == configuration.document.settings.keepRaw ? $0.store : nil }
                        let pauses = shared.map { shared in
                            { @Sendable (host: String, feed: String) in shared.pause(host: host, feed: feed) }
                        }
                        let limitMet = shared.map { shared in
                            { @Sendable (host: String, feed: String, until: Date) in
                                shared.notePause(host: host, until: until, setBy: feed)
                            }
                        }
                        let wrote = self.wrote
                        group.addTask {
                            let outcome = await Self.pull(
                                batch, configuration: configuration, aggregator: aggregator, settings: settings,
                                connectionsPerHost: share, lentStore: lent, sharedPause: pauses, limitMet: limitMet)
                            wrote()
                            continuation.yield(.finished(outcome))
                        }
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: { [readiness] in
            readiness.markStopping()
            continuation.yield(.shutdown)
        }
        continuation.finish()
        // Leases of pulls cut short go back at once (they resume from their checkpoint elsewhere).
        if let shared {
            await shared.stop()
            aggregator.console.error("feedagg serve: worker \(shared.workerID) left the shared schedule")
        }
    }

    private func handle(_ event: Event) async {
        switch event {
        case .tick, .wake, .shutdown: break
        case .reload:
            reload()
            await declareShared()
        case .finished(let outcome):
            let stops = record(outcome)
            await completeShared(outcome, stops: stops)
        case .workers(let live): sharedState.liveWorkers = live
        }
    }

    // MARK: - Due times

    /// Every feed of `configuration`, due as the store says (see the type's documentation).
    private func scheduleAtStart(_ configuration: ServedConfiguration, now: ContinuousClock.Instant) {
        let stored = storedSummaries(configuration)
        for declaration in configuration.document.feeds {
            let interval = declaration.interval ?? configuration.document.settings.interval
            feeds[declaration.name] = FeedSchedule(
                interval: interval, due: dueAtStart(stored[declaration.name], interval: interval, now: now))
        }
    }

    /// When a feed last pulled as `summary` says (`nil`: never) falls due.
    private func dueAtStart(_ summary: FeedSummary?, interval: Double, now: ContinuousClock.Instant)
        -> ContinuousClock.Instant
    {
        guard let summary, let attempted = summary.lastAttemptAt, summary.stagedCount == 0, summary.resumesAtPage == nil
        else { return now }
        let elapsed = Date().timeIntervalSince(attempted)
        let wait = interval * settings.intervalScale - elapsed
        return wait <= 0 ? now : now + .seconds(wait)
    }

    /// What the store holds of each declared feed (empty when it cannot be read: every feed is due).
    private func storedSummaries(_ configuration: ServedConfiguration) -> [String: FeedSummary] {
        let statuses = try? aggregator.feedStatuses(
            declared: configuration.document.feeds, configPath: settings.configPath, store: settings.store,
            lent: lentStore?.store)
        var stored: [String: FeedSummary] = [:]
        for status in statuses ?? [] { if let summary = status.stored { stored[status.name] = summary } }
        return stored
    }

    /// The feeds due now that are not running, marked running: one batch, or none.
    private func startDue() -> [[String]] {
        let now = clock.now
        let names = configuration.current.names.filter { name in
            guard let feed = feeds[name] else { return false }
            return !feed.running && feed.due <= now
        }
        guard !names.isEmpty else { return [] }
        let started = Date()
        for name in names {
            guard var feed = feeds[name] else { continue }
            feed.running = true
            feed.lastStartedAt = started
            feed.answering = feed.requested
            feeds[name] = feed
        }
        return [names]
    }

    /// The delay before the next pull of a feed with `interval` after `failures` failures in a
    /// row, jittered by ±10 % and scaled.
    private func delay(interval: Double, failures: Int) -> Duration {
        var seconds = interval
        if failures > 0 {
            let cap = max(interval, 86_400)
            seconds = min(interval * pow(2, Double(min(failures, 6))), cap)
        }
        seconds *= Double.random(in: 0.9...1.1)
        return .seconds(seconds * settings.intervalScale)
    }

    // MARK: - Pulls

    /// Pulls `names` with the `pull` path, for the configuration in effect when they started, with
    /// at most `connectionsPerHost` connections per host when given (this worker's share).
    private static func pull(
        _ names: [String], configuration: ServedConfiguration, aggregator: Aggregator, settings: ServeSettings,
        connectionsPerHost: Int? = nil, lentStore: (any StoreDriver)? = nil,
        sharedPause: (@Sendable (String, String) -> RateLimitPolicy.SharedRateLimitPause?)? = nil,
        limitMet: (@Sendable (String, String, Date) -> Void)? = nil
    ) async -> PullBatchOutcome {
        var document = configuration.document
        if let connectionsPerHost { document.settings.maxConnectionsPerHost = connectionsPerHost }
        var pull = PullSettings(configPath: settings.configPath, verbose: false, quiet: !settings.verbose)
        pull.store = settings.store
        pull.onlyFeeds = names
        pull.readsPage = false
        pull.lentStore = lentStore
        pull.sharedPause = sharedPause
        pull.limitMet = limitMet
        let started = ContinuousClock.now
        do {
            // Off the cooperative pool, on a thread of its own: the store's synchronous calls block it (PullExecutor).
            let report = try await withTaskExecutorPreference(PullExecutor()) {
                try await aggregator.pull(pull, document: document, declaredFeeds: configuration.feeds)
            }
            return PullBatchOutcome(names: names, report: report, failure: nil, duration: ContinuousClock.now - started)
        } catch {
            let message = (error as? StoreError).map { "the store is unavailable (\($0.kind))" } ?? "\(error)"
            aggregator.console.error("feedagg serve: pulling \(names.joined(separator: ", ")) failed: \(error)")
            return PullBatchOutcome(names: names, report: nil, failure: message, duration: ContinuousClock.now - started)
        }
    }

    /// Records how each feed of a batch ended and when it is due next; returns the rate limits
    /// that stopped feeds, by feed.
    @discardableResult
    private func record(_ outcome: PullBatchOutcome) -> [String: RateLimitStop] {
        var stops: [String: RateLimitStop] = [:]
        let now = clock.now
        let finished = Date()
        for name in outcome.names {
            guard var feed = feeds[name] else { continue }
            feed.running = false
            feed.lastFinishedAt = finished
            feed.answered = max(feed.answered, feed.answering)
            let result = outcome.report?.results.first { $0.feed == name }
            let storeFailure = outcome.report?.storeFailures[name]
            var stop: RateLimitStop?
            if let failure = outcome.failure {
                feed.lastError = failure
            } else if let storeFailure {
                feed.lastError = "the store could not save the pull (\(storeFailure.kind))"
            } else if let error = result?.error {
                if case .notSaved = error.reason {
                    feed.lastError = "the store could not save the pull"
                } else {
                    feed.lastError = error.description
                }
                if case .rateLimited(let limit) = error.reason {
                    stop = limit
                    stops[name] = limit
                }
            } else {
                feed.lastError = nil
            }
            let items = outcome.report?.commits[name]
            if feed.lastError == nil, let result, result.unchanged, result.requests == 0 {
                // The store's claim: another process pulls this feed now; its items are stored when it ends.
                feed.lastResult = .skipped
                feed.newItems = 0
                aggregator.console.error(
                    "feedagg serve: feed '\(name)' skipped: another feedagg process is pulling it right now")
            } else if feed.lastError == nil {
                feed.failures = 0
                feed.lastResult = result?.unchanged == true || (items.map { $0.inserted + $0.updated } ?? 0) == 0
                    ? .unchanged : .updated
                feed.newItems = items?.inserted ?? 0
                feed.rateLimitedUntil = nil
            } else {
                feed.failures += 1
                feed.lastResult = .failed
                feed.newItems = nil
                feed.rateLimitedUntil = stop?.until
            }
            feed.due = now + delay(interval: feed.interval, failures: feed.failures)
            if let until = feed.rateLimitedUntil, until > finished {
                feed.due = max(feed.due, now + .seconds(until.timeIntervalSince(finished)))
            }
            if feed.requested > feed.answered { feed.due = now }
            feeds[name] = feed
            ServerMetrics.recordPull(
                feed: name, result: feed.lastResult ?? .failed,
                unchanged: feed.lastResult == .unchanged && result?.unchanged == true,
                newItems: feed.newItems ?? 0, duration: outcome.duration)
        }
        return stops
    }

    // MARK: - Refresh

    /// Makes `names` (every feed when empty) due now, except those a refresh may not pull yet;
    /// returns the request's number, which ``status()`` reports as done once each accepted feed
    /// has finished a pull started after it, and the feeds refused with when to ask again.
    ///
    /// A refresh cannot make a feed's server answer more often than its owner allows:
    /// - a feed pulled less than `min_refresh` ago (its last pull's start: ``FeedSchedule`` here,
    ///   or the store's last attempt, `lastAttempts`, which sees other processes' pulls too) is
    ///   refused until `min_refresh` has passed; with `min_refresh: 0`, a feed being pulled gets at
    ///   most one more pull queued behind it, however many refreshes ask;
    /// - a failing feed backs off for refreshes too: after `n` failures in a row it is refused
    ///   until `min_refresh × 2^(n−1)` (at most 64 × `min_refresh`) has passed since its last
    ///   pull started (the schedule's own backoff, from `interval`, still applies to scheduled
    ///   pulls; anchoring the refresh's at `min_refresh` lets a person retry a feed that failed
    ///   once within a minute instead of days);
    /// - a feed stopped by a rate limit is refused until the limit's reset.
    ///
    /// With a shared schedule the feeds are made due in the database, so whichever worker is free
    /// pulls them; the status is done once each has finished a pull leased after the request.
    ///
    /// The server answers before the schedule exists (while a worker joins the shared schedule, a
    /// database away): a request then is kept and applied once it does, and the status is not
    /// done meanwhile (it was answered as done, with nothing pulled for it).
    func requestRefresh(_ names: [String], lastAttempts: [String: Date] = [:]) async -> RefreshAnswer {
        latestRequest += 1
        guard scheduleReady else {
            // Kept until the schedule exists (``scheduleDidStart()``); the status is not done meanwhile.
            pendingRefresh = names.isEmpty || pendingRefresh?.isEmpty == true ? [] : (pendingRefresh ?? []) + names
            return RefreshAnswer(request: latestRequest, accepted: names, refused: [])
        }
        let (accepted, refused) = admitRefresh(names.isEmpty ? configuration.current.names : names, lastAttempts: lastAttempts)
        refreshesRegistering += 1
        await applyRefresh(accepted)
        refreshesRegistering -= 1
        return RefreshAnswer(request: latestRequest, accepted: accepted, refused: refused)
    }

    /// Which of `names` a refresh may pull now, and why each other one may not, with the seconds
    /// until it may.
    private func admitRefresh(_ names: [String], lastAttempts: [String: Date]) -> ([String], [RefreshAnswer.Refusal]) {
        let wallNow = Date()
        let minimum = configuration.current.document.settings.minRefresh * settings.intervalScale
        var accepted: [String] = []
        var refused: [RefreshAnswer.Refusal] = []
        for name in names {
            guard let feed = feeds[name] else { continue }
            if let reset = feed.rateLimitedUntil, reset > wallNow {
                refused.append(.init(feed: name, reason: .rateLimited, wait: reset.timeIntervalSince(wallNow)))
                continue
            }
            if minimum > 0 {
                // A failing feed's window doubles with each failure in a row (at most 64 times).
                let window = minimum * Double(1 << min(max(feed.failures - 1, 0), 6))
                let started = [feed.lastStartedAt, lastAttempts[name]].compactMap { $0 }.max()
                let since = feed.running ? 0 : started.map { wallNow.timeIntervalSince($0) } ?? .infinity
                if since < window {
                    let reason: RefreshAnswer.Reason = feed.failures > 0 && !feed.running ? .backingOff : .pulledRecently
                    refused.append(.init(feed: name, reason: reason, wait: window - since))
                    continue
                }
            }
            accepted.append(name)
        }
        return (accepted, refused)
    }

    /// Marks the schedule as existing and applies a refresh asked for before it did.
    func scheduleDidStart() async {
        scheduleReady = true
        guard let pending = pendingRefresh else { return }
        refreshesRegistering += 1
        pendingRefresh = nil
        let (accepted, _) = admitRefresh(pending.isEmpty ? configuration.current.names : pending, lastAttempts: [:])
        await applyRefresh(accepted)
        refreshesRegistering -= 1
    }

    /// Makes `names` due now for refresh request ``latestRequest`` (a feed being pulled gets one
    /// more pull after the running one, however many requests ask).
    private func applyRefresh(_ names: [String]) async {
        let now = clock.now
        var accepted: [String] = []
        for name in names {
            guard var feed = feeds[name] else { continue }
            feed.requested = latestRequest
            if !feed.running { feed.due = min(feed.due, now) }
            feeds[name] = feed
            accepted.append(name)
        }
        await refreshShared(accepted)
        wake?.yield(.wake)
    }

    /// The schedule of every feed, and whether the latest refresh request is done.
    func status() async -> RefreshStatus {
        var status = localStatus()
        if shared != nil { status = await sharedStatus(status) }
        // A refresh asked for while the schedule was being set up, or still being registered, is not
        // done (without this, a status read during the registration's round trip said done).
        // Nor is one the database did not take yet (tried again at every lease poll).
        if pendingRefresh != nil || refreshesRegistering > 0 || !sharedState.undelivered.isEmpty { status.done = false }
        return status
    }

    /// ``status()`` from this process's own schedule.
    private func localStatus() -> RefreshStatus {
        let now = clock.now
        let wallNow = Date()
        let entries = configuration.current.names.compactMap { name -> RefreshStatus.Feed? in
            guard let feed = feeds[name] else { return nil }
            let wait = now < feed.due ? (feed.due - now).seconds : 0
            return RefreshStatus.Feed(
                name: name, schedule: feed, nextPullAt: feed.running ? nil : wallNow.addingTimeInterval(wait))
        }
        let done = feeds.values.allSatisfy { $0.requested <= $0.answered }
        return RefreshStatus(refresh: latestRequest, done: done, feeds: entries)
    }

    // MARK: - SIGHUP

    /// Re-reads feeds.yaml: a valid file replaces the running configuration (new feeds fall due
    /// at once, removed ones leave the schedule, changed intervals apply from the last pull); an
    /// invalid one is reported on standard error and the running configuration kept.
    private func reload() {
        let console = aggregator.console
        let loaded: (document: FeedsDocument, feeds: [Feed])
        do {
            loaded = try aggregator.load(configPath: settings.configPath)
        } catch {
            console.error(
                "feedagg serve: \(settings.configPath) not reloaded; the running configuration is kept:\n\(error)")
            return
        }
        configuration.replace(with: ServedConfiguration(document: loaded.document, feeds: loaded.feeds))
        let now = clock.now
        var next: [String: FeedSchedule] = [:]
        for declaration in loaded.document.feeds {
            let interval = declaration.interval ?? loaded.document.settings.interval
            if var feed = feeds[declaration.name] {
                if feed.interval != interval, !feed.running {
                    let since = feed.lastFinishedAt.map { Date().timeIntervalSince($0) } ?? .infinity
                    let wait = interval * settings.intervalScale - since
                    feed.due = wait <= 0 ? now : now + .seconds(wait)
                }
                feed.interval = interval
                next[declaration.name] = feed
            } else {
                next[declaration.name] = FeedSchedule(interval: interval, due: now)
            }
        }
        // A removed feed's running pull ends on its own; nothing is scheduled for it again.
        feeds = next
        console.error("feedagg serve: reloaded \(settings.configPath): \(loaded.document.feeds.count) feeds")
    }
}

/// How one batch of pulls ended.
struct PullBatchOutcome: Sendable {
    /// The feeds pulled.
    var names: [String]
    /// The pull's report (`nil` when it failed as a whole).
    var report: PullReport?
    /// Why the whole batch failed (the store could not be opened…).
    var failure: String?
    /// How long it took.
    var duration: Duration
}
