import FeedCore
import Foundation

/// The schedule `feedagg serve` workers share when the store is PostgreSQL
/// (docs/worker-coordination.md): which feed is due, which worker pulls it, rate-limit pauses
/// every worker honours. ``PullScheduler`` uses it instead of its in-memory due times when given
/// one; ``PostgresSharedSchedule`` (PostgreSQL trait) is the implementation.
protocol SharedSchedule: Sendable {
    /// This worker's identity in the registry (`host:pid:random`).
    var workerID: String { get }
    /// How long a lease lasts without renewal (already scaled by `--interval-scale`).
    var leaseTimeout: Duration { get }

    /// Creates or upgrades the coordination tables, registers this worker and declares `feeds`.
    func start(_ feeds: [SharedFeed]) async throws
    /// Declares `feeds` (the configuration after a SIGHUP): new ones are due at once.
    func declare(_ feeds: [SharedFeed]) async throws
    /// Records that this worker is alive and renews its leases; returns the live workers.
    func heartbeat() async throws -> Int
    /// Takes up to `limit` due feeds among `names` that no other worker holds and no shared
    /// rate-limit pause holds back.
    func lease(limit: Int, among names: [String]) async throws -> [SharedLease]
    /// Ends the leases of `completions` (one round trip), setting when each feed is due next;
    /// returns the feeds whose lease was ended. A lease lost to another worker is not among them
    /// (its outcome is then not recorded).
    func complete(_ completions: [SharedCompletion]) async throws -> Set<String>
    /// Shares a rate limit `feed` met on `host` (`host:port`): no worker starts a feed with that
    /// origin and `feed`'s credential before `until`.
    func recordPause(host: String, until: Date, setBy feed: String) async throws
    /// A rate limit `feed` met on `host` just now: this worker's pulls see it at once, and it is
    /// recorded for the others without waiting for the pull to end (``recordPause(host:until:setBy:)``
    /// in a task of its own). Synchronous: the engine calls it as the response arrives.
    func notePause(host: String, until: Date, setBy feed: String)
    /// Reads the pauses in force from the database into the copy ``pause(host:feed:)`` answers
    /// from (the scheduler calls it on every lease poll).
    func refreshPauses() async throws
    /// The pause in force for `feed`'s requests to `host`, from the copy of the last
    /// ``refreshPauses()`` and this worker's own ``recordPause(host:until:setBy:)``: what a running
    /// pull's engine asks before each request. Synchronous and cheap.
    func pause(host: String, feed: String) -> RateLimitPolicy.SharedRateLimitPause?
    /// Makes `names` due now; returns the request's time (the database's clock).
    func makeDue(_ names: [String]) async throws -> Date
    /// Calls `wake` whenever any worker makes feeds due, until the calling task is cancelled (a
    /// lost connection is listened on again; the scheduler's lease poll covers the gap).
    func watchDue(_ wake: @escaping @Sendable () -> Void) async
    /// Every feed of the shared schedule, by name.
    func schedule() async throws -> [String: SharedFeedStatus]
    /// Gives back this worker's leases, leaves the registry and closes the connections.
    func stop() async
}

/// A feed as this worker's configuration declares it.
struct SharedFeed: Sendable {
    /// Its name.
    var name: String
    /// Its interval, scaled.
    var interval: Duration
    /// `host` or `host:port` of its first page (what a rate limit's stop names).
    var host: String
    /// Its credential header values (hashed before they leave the process, never stored).
    var secrets: [String]

    /// The declaration of `feed`, pulled every `interval`.
    init(_ feed: Feed, interval: Duration) {
        name = feed.name
        self.interval = interval
        let url = feed.source.firstPageURL
        host = url.port.map { "\(url.host ?? ""):\($0)" } ?? (url.host ?? "")
        secrets = feed.source.credentialHeaders.map { $0.name.lowercased() + ":" + $0.value }
    }
}

/// A feed this worker leased.
struct SharedLease: Sendable, Hashable {
    var feed: String
    var generation: Int64
    var expiresAt: Date
    /// The worker whose lease expired before this one (a dead worker), if any.
    var takenOverFrom: String?
}

/// How a leased feed's pull ended, for ``SharedSchedule/complete(_:)``.
struct SharedCompletion: Sendable {
    var lease: SharedLease
    /// Why the pull failed; `nil` after a success.
    var failure: String?
    /// A rate limit's reset the feed met: it is not due before.
    var rateLimitedUntil: Date?
}

/// One feed of the shared schedule.
struct SharedFeedStatus: Sendable {
    /// The worker holding its lease now.
    var worker: String?
    /// When it is due next.
    var nextDueAt: Date
    /// Whether a pull started at or after the refresh request at this time has ended.
    var answered: @Sendable (Date) -> Bool
}
