// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedCore
import FeedStorage
import Foundation
import Logging
import PostgresFeedStore
import PostgresNIO
import Synchronization
import WorkerCoordination

/// ``SharedSchedule`` on PostgreSQL: a ``WorkerCoordinator`` on a pool of its own to the store's
/// database (the same URL, so the same login), run by a task this type owns until ``stop()``.
final class PostgresSharedSchedule: SharedSchedule {
    let coordinator: WorkerCoordinator
    private let client: PostgresClient
    private let logger: Logger
    private let runner: Task<Void, Never>
    /// The credential digest of each declared feed, for the pauses its responses set.
    private let credentials = Mutex<[String: String]>([:])
    /// The pauses in force, by origin and credential digest (``refreshPauses()``).
    private let pauses = Mutex<[PauseKey: RateLimitPolicy.SharedRateLimitPause]>([:])

    private struct PauseKey: Hashable {
        var origin: String
        var credential: String
    }

    var workerID: String { coordinator.id.rawValue }
    var leaseTimeout: Duration { coordinator.settings.leaseTimeout }

    /// A schedule on the database `url` names; `leaseTimeout` scaled, `maxConnectionsPerHost` for
    /// all workers together. Throws ``PostgresTLSError`` when a TLS file of `url` cannot be loaded.
    init(url: PostgresURL, leaseTimeout: Duration, maxConnectionsPerHost: Int) throws {
        let logger = Logger(label: "feedagg.workers", factory: { _ in SwiftLogNoOpLogHandler() })
        self.logger = logger
        // One of the five is held by watchDue's LISTEN.
        client = PostgresClient(configuration: try url.clientConfiguration(maximumConnections: 5), backgroundLogger: logger)
        let client = self.client
        runner = Task.detached { await client.run() }  // ends with stop(), not with the group's graceful shutdown
        coordinator = WorkerCoordinator(
            client: client,
            settings: CoordinationSettings(leaseTimeout: leaseTimeout, maxConnectionsPerHost: maxConnectionsPerHost),
            logger: logger)
    }

    func start(_ feeds: [SharedFeed]) async throws {
        try await WorkerCoordinator.migrate(client, logger: logger)
        try await coordinator.register()
        try await declare(feeds)
    }

    func declare(_ feeds: [SharedFeed]) async throws {
        let declared = feeds.map { feed in
            DeclaredFeed(
                name: feed.name, interval: feed.interval, origin: feed.host,
                credential: DeclaredFeed.credentialDigest(feed.secrets))
        }
        credentials.withLock { map in
            for feed in declared { map[feed.name] = feed.credential }
        }
        try await coordinator.declare(declared)
    }

    func heartbeat() async throws -> Int {
        try await coordinator.heartbeat()
    }

    func lease(limit: Int, among names: [String]) async throws -> [SharedLease] {
        try await coordinator.leaseDueFeeds(limit: limit, among: names).map {
            SharedLease(feed: $0.feed, generation: $0.generation, expiresAt: $0.expiresAt, takenOverFrom: $0.takenOverFrom)
        }
    }

    func complete(_ completions: [SharedCompletion]) async throws -> Set<String> {
        try await coordinator.complete(
            completions.map { completion in
                let lease = completion.lease
                let held = FeedLease(
                    feed: lease.feed, generation: lease.generation, expiresAt: lease.expiresAt, takenOverFrom: lease.takenOverFrom)
                let outcome: PullOutcome =
                    completion.failure.map { .failed(message: $0, rateLimitedUntil: completion.rateLimitedUntil) } ?? .succeeded
                return (held, outcome)
            })
    }

    func recordPause(host: String, until: Date, setBy feed: String) async throws {
        let credential = remember(host: host, until: until, setBy: feed)
        try await coordinator.recordPause(origin: host, credential: credential, until: until, setBy: feed)
    }

    func notePause(host: String, until: Date, setBy feed: String) {
        let credential = remember(host: host, until: until, setBy: feed)
        let coordinator = self.coordinator
        // Detached: the engine's task (and its cancellation) has nothing to do with the record. A
        // failure here is not reported: the pull's end records the pause again, and reports.
        Task.detached {
            try? await coordinator.recordPause(origin: host, credential: credential, until: until, setBy: feed)
        }
    }

    /// Puts the pause in this worker's copy (a later one already there is kept); returns `feed`'s
    /// credential digest.
    private func remember(host: String, until: Date, setBy feed: String) -> String {
        let credential = credentials.withLock { $0[feed] } ?? ""
        pauses.withLock { pauses in
            let key = PauseKey(origin: host, credential: credential)
            if (pauses[key]?.until ?? .distantPast) < until { pauses[key] = .init(until: until, setBy: feed) }
        }
        return credential
    }

    func refreshPauses() async throws {
        var fresh: [PauseKey: RateLimitPolicy.SharedRateLimitPause] = [:]
        for pause in try await coordinator.activePauses() {
            fresh[PauseKey(origin: pause.origin, credential: pause.credential)] = .init(until: pause.until, setBy: pause.setBy)
        }
        let now = Date()
        pauses.withLock { pauses in
            // This worker's own pauses not yet visible in the database stay (recorded meanwhile).
            for (key, pause) in pauses where pause.until > now && (fresh[key]?.until ?? .distantPast) < pause.until {
                fresh[key] = pause
            }
            pauses = fresh
        }
    }

    func pause(host: String, feed: String) -> RateLimitPolicy.SharedRateLimitPause? {
        let credential = credentials.withLock { $0[feed] } ?? ""
        return pauses.withLock { $0[PauseKey(origin: host, credential: credential)] }
    }

    func makeDue(_ names: [String]) async throws -> Date {
        try await coordinator.makeDue(names)
    }

    func watchDue(_ wake: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled {
            // Returns when cancelled; a failure (the database restarting) is retried after a pause.
            do { try await coordinator.listenForDueFeeds(wake) } catch {}
            try? await Task.sleep(for: .seconds(1))
        }
    }

    func schedule() async throws -> [String: SharedFeedStatus] {
        var statuses: [String: SharedFeedStatus] = [:]
        for feed in try await coordinator.schedule() {
            statuses[feed.feed] = SharedFeedStatus(worker: feed.heldBy, nextDueAt: feed.nextDueAt, answered: { feed.answered(since: $0) })
        }
        return statuses
    }

    func stop() async {
        try? await coordinator.unregister()
        runner.cancel()
        _ = await runner.value
    }
}

#endif
