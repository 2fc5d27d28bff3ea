import Foundation
import Synchronization

/// What one feed may still wait for rate limits in a pull (`rate_limit_wait`), shared by its
/// pages in flight. Waits of concurrent pages overlap: the budget counts the time covered by the
/// feed's waits, not their sum.
final class RateLimitBudget: Sendable {
    private struct State {
        var waited: Double = 0
        /// The end of the latest wait taken.
        var coveredUntil: Date?
    }

    private let state = Mutex(State())
    /// The whole budget, in seconds.
    let total: Double

    init(_ total: Duration) {
        self.total = total.seconds
    }

    /// What the feed has waited so far.
    var waited: Duration { .rounded(seconds: state.withLock { $0.waited }) }

    /// Takes a wait until `until` from the budget; `false` (nothing taken) when it does not fit.
    func take(until: Date, now: Date) -> Bool {
        state.withLock { state in
            let cost = Self.cost(until, now: now, state)
            guard state.waited + cost <= total + 0.000_5 else { return false }
            state.waited += cost
            state.coveredUntil = max(state.coveredUntil ?? until, until)
            return true
        }
    }

    /// Takes as much of a wait until `until` as the budget has; the end of the wait taken, or
    /// `nil` when the budget is spent.
    func takeUpTo(_ until: Date, now: Date) -> Date? {
        state.withLock { state in
            let start = max(now, state.coveredUntil ?? now)
            let left = total - state.waited
            if until <= start { return until }
            guard left > 0.000_5 else { return nil }
            let end = min(until, start.addingTimeInterval(left))
            state.waited += end.timeIntervalSince(start)
            state.coveredUntil = end
            return end
        }
    }

    private static func cost(_ until: Date, now: Date, _ state: State) -> Double {
        max(0, until.timeIntervalSince(max(now, state.coveredUntil ?? now)))
    }
}
