// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

public import Foundation

/// A due feed taken by one worker until ``expiresAt`` (renewed while its pull runs).
public struct FeedLease: Sendable, Hashable {
    /// The feed's name.
    public let feed: String
    /// Bumped by every lease of the feed: a worker whose lease was taken over cannot renew or
    /// complete it any more (its pull's outcome is then discarded by the schedule).
    public let generation: Int64
    /// When the lease ends unless renewed (the database's clock).
    public let expiresAt: Date
    /// The worker that held the feed before, when its lease expired unfinished (a dead worker).
    public let takenOverFrom: String?

    /// A lease as ``WorkerCoordinator/leaseDueFeeds(limit:among:)`` returned it (a caller that
    /// keeps leases in a form of its own gives them back this way).
    public init(feed: String, generation: Int64, expiresAt: Date, takenOverFrom: String?) {
        self.feed = feed
        self.generation = generation
        self.expiresAt = expiresAt
        self.takenOverFrom = takenOverFrom
    }
}

/// How a leased pull ended, which sets when the feed is due next.
public enum PullOutcome: Sendable, Equatable {
    /// Pulled: next due one interval (± jitter) later.
    case succeeded
    /// Failed: the delay doubles with each failure in a row (up to the backoff cap), and is never
    /// shorter than a rate limit's reset (`rateLimitedUntil`).
    case failed(message: String, rateLimitedUntil: Date?)
}

/// One feed in the shared schedule, for `feeds` and `/api/feeds`.
public struct FeedScheduleStatus: Sendable, Equatable {
    /// The feed's name.
    public let feed: String
    /// The worker holding it now (`nil`: none, or its lease expired).
    public let heldBy: String?
    /// When that lease ends.
    public let leaseExpiresAt: Date?
    /// When it is due next.
    public let nextDueAt: Date
    /// Failures in a row.
    public let failures: Int
    /// When a pull of it last ended.
    public let lastPulledAt: Date?
    /// The last failure's message, cleared by a success.
    public let lastError: String?
    /// When a worker last leased it.
    public let leasedAt: Date?

    /// Whether a pull that started at or after `request` (a time on the database's clock, from
    /// ``WorkerCoordinator/makeDue(_:)``) has ended.
    public func answered(since request: Date) -> Bool {
        guard let leasedAt, leasedAt >= request, heldBy == nil, let lastPulledAt else { return false }
        return lastPulledAt >= leasedAt
    }
}

/// A worker in the registry.
public struct WorkerStatus: Sendable, Equatable {
    /// Its identity.
    public let id: String
    /// When it registered.
    public let startedAt: Date
    /// Its last heartbeat.
    public let lastSeenAt: Date
    /// Whether it was seen within the worker timeout.
    public let live: Bool
}

#endif
