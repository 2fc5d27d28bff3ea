import Foundation

/// Where one feed stands in `feedagg serve`'s schedule (``PullScheduler``).
struct FeedSchedule: Sendable {
    /// The last pull's outcome.
    enum Result: String, Sendable {
        /// New or changed items were stored.
        case updated
        /// Page 1 answered 304 or nothing changed.
        case unchanged
        /// The pull failed (see ``FeedSchedule/lastError``).
        case failed
        /// Another feedagg process was pulling the feed (the store's claim): nothing was fetched.
        case skipped
    }

    /// The feed's `interval` (seconds, unscaled).
    var interval: Double
    /// When the next pull starts.
    var due: ContinuousClock.Instant
    /// Whether a pull of the feed runs now.
    var running = false
    /// Failed pulls in a row (0 after a success): the backoff's exponent.
    var failures = 0
    /// When the last pull started and finished.
    var lastStartedAt: Date?
    var lastFinishedAt: Date?
    var lastResult: Result?
    /// Why the last pull failed.
    var lastError: String?
    /// Items the last pull stored for the first time.
    var newItems: Int?
    /// A rate limit's reset: no pull starts before it.
    var rateLimitedUntil: Date?
    /// The newest refresh request (``PullScheduler/requestRefresh(_:)``) this feed has to answer.
    var requested = 0
    /// The refresh request the running pull answers (the newest one when it started).
    var answering = 0
    /// The newest refresh request a finished pull answered.
    var answered = 0
}
