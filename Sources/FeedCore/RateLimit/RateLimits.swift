import Foundation
import Synchronization

/// Rate-limit state shared by every feed of a pull, per ``RateLimitKey`` (origin and credential).
final class RateLimits: Sendable {
    /// A time before which requests of one key should not go out.
    struct Pause: Sendable {
        var until: Date
        /// The feed whose response set the pause.
        var setBy: String
        /// Whether the server gave the end.
        var known: Bool
    }

    private struct State {
        /// A limit: a request waits for it within its feed's budget, or is refused.
        var limit: Pause?
        /// A pace (few requests left, or none left and no reset time): a request waits what its
        /// feed's budget allows, then goes.
        var pace: Pause?
    }

    /// What a request must do before it is sent.
    enum Admission: Sendable {
        /// Send now.
        case go
        /// Wait this long, then ask again; `limit`: the wait is for a limit (not a pace).
        case wait(Duration, limit: Bool, announce: RateLimitWait?)
        /// Do not send: the feed stops.
        case refuse(RateLimitStop)
    }

    private let states = Mutex<[RateLimitKey: State]>([:])
    let policy: RateLimitPolicy

    init(policy: RateLimitPolicy) {
        self.policy = policy
    }

    /// Reserves the turn of `feed`'s request under `key`, taking any wait from the feed's `budget`.
    func admit(_ key: RateLimitKey, feed: String, budget: RateLimitBudget) -> Admission {
        let now = policy.now()
        // A pause met elsewhere (asked outside the lock: it is the caller's code).
        let shared = policy.sharedPause?(key.host, feed).flatMap { $0.until > now ? $0 : nil }
        return states.withLock { states -> Admission in
            var state = states[key] ?? State()
            defer { states[key] = state.limit == nil && state.pace == nil ? nil : state }
            if let shared, (state.limit?.until ?? .distantPast) < shared.until {
                state.limit = Pause(until: shared.until, setBy: shared.setBy, known: true)
            }
            if let limit = state.limit, limit.until > now {
                guard budget.take(until: limit.until, now: now) else {
                    return .refuse(
                        RateLimitStop(
                            host: key.host, until: limit.until, resetKnown: limit.known, cause: .beyondWait,
                            maxWait: policy.maxWait, waited: budget.waited,
                            pausedBy: limit.setBy == feed ? nil : limit.setBy))
                }
                let wait = RateLimitWait(
                    feed: feed, host: key.host, until: limit.until, limitedBy: limit.setBy == feed ? nil : limit.setBy)
                return .wait(.rounded(seconds: limit.until.timeIntervalSince(now)), limit: true, announce: wait)
            }
            state.limit = nil
            if let pace = state.pace, pace.until > now {
                guard let until = budget.takeUpTo(pace.until, now: now) else {
                    return .go
                }
                // A pace for "none left, no reset time" is a limit in all but name: announce it.
                let announce = pace.known ? nil : RateLimitWait(feed: feed, host: key.host, until: until)
                return .wait(.rounded(seconds: until.timeIntervalSince(now)), limit: !pace.known, announce: announce)
            }
            state.pace = nil
            return .go
        }
    }

    /// Learns from `feed`'s response under `key`; `hit` when the response was a rate limit.
    func observe(_ response: HTTPResponse, key: RateLimitKey, hit: RateLimitPolicy.Hit?, feed: String) {
        let now = policy.now()
        let remaining = RateLimitPolicy.remaining(response.headers)
        let reset = RateLimitPolicy.reset(response.headers)
        // A limit with an end, told to `limitMet` (outside the lock: it is the caller's code).
        var met: Date?
        defer { if let met { policy.limitMet?(key.host, feed, met) } }
        states.withLock { states in
            var state = states[key] ?? State()
            defer { states[key] = state }
            func later(_ pause: Pause?, _ new: Pause) -> Pause {
                guard let pause, pause.until > new.until else { return new }
                return pause
            }
            if let hit {
                state.limit = later(state.limit, Pause(until: hit.until, setBy: feed, known: hit.known))
                met = hit.until
                return
            }
            guard let remaining else { return }
            if let reset, reset > now {
                if remaining <= 0 {
                    state.limit = later(state.limit, Pause(until: reset, setBy: feed, known: true))
                    met = reset
                } else if remaining < policy.slowDownBelow {
                    // Spread what is left until the reset: the next request waits one interval.
                    let slot = now.addingTimeInterval(reset.timeIntervalSince(now) / Double(remaining + 1))
                    state.pace = later(state.pace, Pause(until: slot, setBy: feed, known: true))
                }
            } else if remaining <= 0 {
                // None left and no reset time: do not send the next request at once.
                let until = now.addingTimeInterval(policy.defaultPause.seconds)
                state.pace = later(state.pace, Pause(until: until, setBy: feed, known: false))
            }
        }
    }
}
