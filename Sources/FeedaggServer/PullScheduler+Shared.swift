import FeedaggKit
import FeedCore
import Foundation

/// What a worker holds of the shared schedule.
struct SharedState: Sendable {
    /// Whether the coordination tables are migrated and this worker registered.
    var started = false
    /// The leases of the feeds this worker pulls now.
    var leases: [String: SharedLease] = [:]
    /// Live workers at the last heartbeat (this one included).
    var liveWorkers = 1
    /// When due feeds were last leased.
    var lastLease: ContinuousClock.Instant?
    /// The latest refresh request: its time on the database's clock, and its feeds.
    var request: (at: Date, feeds: [String])?
    /// Feeds of a refresh the database did not take (making them due failed): tried again at
    /// every lease poll, and the refresh is not done until it succeeds.
    var undelivered: [String] = []
    /// Finished pulls whose leases are not ended yet (ending them failed): sent again at every
    /// lease poll. A heartbeat renews every lease this worker holds, so a completion dropped
    /// would keep its feed from every worker until this one stops.
    var unfinished: [SharedCompletion] = []
    /// The last error reported, so a database that stays down is reported once, not every tick.
    var lastError: String?
}

/// The shared schedule (docs/worker-coordination.md): several `feedagg serve` on one PostgreSQL
/// store lease due feeds from it instead of keeping due times of their own.
extension PullScheduler {
    /// Feeds one worker holds leases of at once, at most: one batch, one pull (`page_concurrency`
    /// of them in flight).
    ///
    /// A pull has a fixed cost (its HTTP client, engine, report: ~56 ms of CPU), so bigger batches
    /// cost less per feed (W6, one worker, 2,000 unchanged feeds on PostgreSQL: 19.9 s of CPU per
    /// cycle with 16, 14.6 s with 64), and small enough that other workers get their part of a
    /// burst. A running pull sees a pause another worker records at the next lease poll (its
    /// engine asks ``SharedSchedule/pause(host:feed:)`` before each request); before that was so,
    /// a 64-feed batch went on sending to a paused host for seconds.
    static let leaseBatch = 64

    /// The feeds of `configuration` as this worker declares them, intervals scaled.
    func sharedFeeds(_ configuration: ServedConfiguration) -> [SharedFeed] {
        let built = Dictionary(configuration.feeds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return configuration.document.feeds.compactMap { declaration in
            guard let feed = built[declaration.name] else { return nil }
            let interval = declaration.interval ?? configuration.document.settings.interval
            return SharedFeed(feed, interval: .seconds(interval * settings.intervalScale))
        }
    }

    /// Migrates, registers and declares this worker's feeds; on failure it is tried again at the
    /// next tick (nothing is pulled meanwhile).
    func startShared() async {
        guard let shared, !sharedState.started else { return }
        let feeds = sharedFeeds(configuration.current)
        do {
            try await shared.start(feeds)
            sharedState.started = true
            sharedState.lastError = nil
            for feed in feeds where self.feeds[feed.name] == nil {
                self.feeds[feed.name] = FeedSchedule(interval: feed.interval.seconds / settings.intervalScale, due: clock.now)
            }
            aggregator.console.error("feedagg serve: worker \(shared.workerID) shares the schedule of \(feeds.count) feeds")
            await scheduleDidStart()
        } catch {
            report("cannot join the shared schedule", error)
        }
    }

    /// Declares the reloaded configuration's feeds (SIGHUP); each worker pulls only the feeds its
    /// own configuration declares.
    func declareShared() async {
        guard let shared, sharedState.started else { return }
        do {
            try await shared.declare(sharedFeeds(configuration.current))
        } catch {
            report("cannot declare the reloaded feeds", error)
        }
    }

    /// Leases due feeds not running here, at most once per poll period on ticks (at once after a
    /// refresh or a finished batch); returns them as one batch, marked running.
    func leaseDue(after event: Event) async -> [[String]] {
        guard let shared else { return [] }
        if !sharedState.started { await startShared() }
        guard sharedState.started else { return [] }
        let now = clock.now
        if case .tick = event, let last = sharedState.lastLease, now - last < pollPeriod { return [] }
        sharedState.lastLease = now
        await sendCompletions()
        if !sharedState.undelivered.isEmpty { await refreshShared([]) }
        // The pauses other workers recorded, for the running pulls' engines (before anything else:
        // a worker with no room for more feeds still has pulls that must see them).
        do {
            try await shared.refreshPauses()
        } catch {
            report("cannot read the shared rate-limit pauses", error)
        }
        let names = configuration.current.names.filter { feeds[$0]?.running != true }
        let room = Self.leaseBatch - sharedState.leases.count
        guard !names.isEmpty, room > 0 else { return [] }
        let taken: [SharedLease]
        do {
            taken = try await shared.lease(limit: room, among: names)
            sharedState.lastError = nil
        } catch {
            report("cannot lease due feeds", error)
            return []
        }
        let started = Date()
        var batch: [String] = []
        // Removed by a reload while leasing: given back through a completion.
        var givenBack: [SharedCompletion] = []
        for lease in taken {
            guard var feed = feeds[lease.feed], !feed.running else {
                givenBack.append(SharedCompletion(lease: lease))
                continue
            }
            if let previous = lease.takenOverFrom, previous != shared.workerID {
                aggregator.console.error(
                    "feedagg serve: feed '\(lease.feed)' taken over from worker \(previous), whose lease expired")
            }
            feed.running = true
            feed.lastStartedAt = started
            feed.answering = feed.requested
            feeds[lease.feed] = feed
            sharedState.leases[lease.feed] = lease
            batch.append(lease.feed)
        }
        if !givenBack.isEmpty {
            sharedState.unfinished += givenBack
            await sendCompletions()
        }
        return batch.isEmpty ? [] : [batch]
    }

    /// How often ticks look for due feeds in the database: the tick, scaled, within 0.1–1 s.
    var pollPeriod: Duration { .seconds(min(1, max(0.1, settings.intervalScale))) }

    /// This worker's share of `max_connections_per_host` (divided among the live workers, at
    /// least one); `nil` without a shared schedule.
    func connectionsPerHost(_ configuration: ServedConfiguration) -> Int? {
        guard shared != nil else { return nil }
        return max(1, configuration.document.settings.maxConnectionsPerHost / max(1, sharedState.liveWorkers))
    }

    /// Completes the leases of a finished batch with each feed's outcome, and shares the rate
    /// limits its feeds met. A lease lost meanwhile (another worker took the feed after it
    /// expired) is not completed: that worker's pull decides when the feed is due next.
    func completeShared(_ outcome: PullBatchOutcome, stops: [String: RateLimitStop]) async {
        guard let shared else { return }
        for name in outcome.names {
            guard let lease = sharedState.leases.removeValue(forKey: name) else { continue }
            let feed = feeds[name]
            var failure: String?
            if feed?.lastResult == .failed { failure = feed?.lastError ?? "failed" }
            if feed?.lastResult == .skipped { failure = "skipped: another feedagg process held the store's claim" }
            let stop = stops[name]
            if let stop, stop.pausedBy == nil {
                do {
                    try await shared.recordPause(host: stop.host, until: stop.until, setBy: name)
                } catch {
                    report("cannot share the rate limit '\(name)' met", error)
                }
            }
            sharedState.unfinished.append(SharedCompletion(lease: lease, failure: failure, rateLimitedUntil: stop?.until))
        }
        await sendCompletions()
    }

    /// Ends the leases of ``SharedState/unfinished`` in one statement; after a failure they stay
    /// there for the next lease poll. (Only the scheduler's loop calls it, one call at a time.)
    private func sendCompletions() async {
        guard let shared, !sharedState.unfinished.isEmpty else { return }
        let completions = sharedState.unfinished
        do {
            let completed = try await shared.complete(completions)
            sharedState.unfinished.removeFirst(completions.count)
            for name in completions.map(\.lease.feed) where !completed.contains(name) {
                aggregator.console.error(
                    "feedagg serve: feed '\(name)': its lease expired and another worker took it during this pull; "
                        + "that worker's pull sets when it is due next")
            }
        } catch {
            let names = completions.map(\.lease.feed)
            let shown = names.prefix(5).map { "'\($0)'" }.joined(separator: ", ") + (names.count > 5 ? " and \(names.count - 5) more" : "")
            report("cannot complete the leases of \(shown) (trying again)", error)
        }
    }

    /// Makes `names` due now in the shared schedule (any worker may take them).
    /// A failure keeps the feeds for the next lease poll (``SharedState/undelivered``): the status
    /// said done, from the previous request, and the refresh was lost.
    func refreshShared(_ names: [String]) async {
        guard let shared, sharedState.started else { return }
        var seen = Set<String>()
        let wanted = (sharedState.undelivered + names).filter { seen.insert($0).inserted }
        guard !wanted.isEmpty else { return }
        do {
            sharedState.request = (try await shared.makeDue(wanted), wanted)
            sharedState.undelivered = []
        } catch {
            sharedState.undelivered = wanted
            report("cannot make \(wanted.count) feeds due for a refresh (trying again)", error)
        }
    }

    /// `status` with the shared schedule's worker and next due time of each feed, and `done` when
    /// every feed of the latest refresh finished a pull leased after it (by any worker).
    func sharedStatus(_ status: RefreshStatus) async -> RefreshStatus {
        guard let shared, let schedule = try? await shared.schedule() else { return status }
        var status = status
        for index in status.feeds.indices {
            status.feeds[index].shared = true
            guard let entry = schedule[status.feeds[index].name] else { continue }
            status.feeds[index].worker = entry.worker
            if !status.feeds[index].schedule.running { status.feeds[index].nextPullAt = entry.nextDueAt }
        }
        if let request = sharedState.request {
            status.done = request.feeds.allSatisfy { schedule[$0].map { $0.answered(request.at) } ?? true }
        } else {
            status.done = true
        }
        return status
    }

    /// Each feed's worker and next due time for `/api/feeds`; `nil` without a shared schedule.
    func workerSchedule() async -> [String: FeedStatus.WorkerSchedule]? {
        guard let shared, let schedule = try? await shared.schedule() else { return nil }
        return schedule.mapValues { FeedStatus.WorkerSchedule(worker: $0.worker, nextDueAt: $0.nextDueAt) }
    }

    /// Writes a failure of the shared schedule on standard error, once until something succeeds.
    private func report(_ what: String, _ error: any Error) {
        let text = "feedagg serve: \(what): \(error)"
        guard text != sharedState.lastError else { return }
        sharedState.lastError = text
        aggregator.console.error(text)
    }
}
