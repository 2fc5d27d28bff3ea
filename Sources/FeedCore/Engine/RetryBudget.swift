import Foundation
import Synchronization

/// What one feed may still spend waiting on retries (shared by its pages fetched concurrently),
/// what it may still wait for rate limits, how many requests it sent, and how many of them were
/// sent again (retries and answers to rate limits).
final class RetryBudget: Sendable {
    private struct State {
        var remaining: Duration
        var resends = 0
        var sent = 0
    }

    private let state: Mutex<State>
    /// The feed's waits for rate limits (`rate_limit_wait`).
    let rateLimit: RateLimitBudget

    init(_ total: Duration, rateLimitWait: Duration = .seconds(60)) {
        state = Mutex(State(remaining: total))
        rateLimit = RateLimitBudget(rateLimitWait)
    }

    /// Takes `wait` from the budget; `false` (nothing taken) when it does not fit.
    func take(_ wait: Duration) -> Bool {
        state.withLock { state in
            guard wait <= state.remaining else { return false }
            state.remaining -= wait
            return true
        }
    }

    /// Counts a request sent again.
    func resent() { state.withLock { $0.resends += 1 } }

    /// Requests sent again so far.
    var resends: Int { state.withLock { $0.resends } }

    /// Counts a request that got an answer or failed on its own (not one cancelled because the
    /// walk no longer needed it).
    func sentOne() { state.withLock { $0.sent += 1 } }

    /// Requests counted by ``sentOne()``.
    var sent: Int { state.withLock { $0.sent } }
}
