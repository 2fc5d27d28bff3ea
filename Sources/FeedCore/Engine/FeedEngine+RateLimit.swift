import Foundation

extension FeedEngine {
    /// The outcome of waiting for a request's turn under the rate limits.
    enum RateLimitTurn: Sendable {
        /// Send the request; `waited`: it waited for a limit first (meeting one again stops the feed).
        case admitted(waited: Bool)
        /// The feed stops.
        case refused(RateLimitStop)
    }

    /// Waits while `key` is paused by a rate limit or a pace, within the feed's budget.
    func admit(_ key: RateLimitKey, feed: String, budget: RateLimitBudget) async -> RateLimitTurn {
        var waited = false
        for _ in 0..<100 {
            switch rateLimits.admit(key, feed: feed, budget: budget) {
            case .go:
                return .admitted(waited: waited)
            case .refuse(let stop):
                return .refused(stop)
            case .wait(let duration, let limit, let announce):
                if let announce { events.rateLimitWait(announce) }
                waited = waited || limit
                do { try await rateLimits.policy.sleep(duration) } catch { return .admitted(waited: waited) }
            }
        }
        return .admitted(waited: waited)
    }

    /// The stop of a request that met a rate limit again after waiting for one.
    func limitedAgain(_ hit: RateLimitPolicy.Hit, key: RateLimitKey, budget: RateLimitBudget) -> RateLimitStop {
        RateLimitStop(
            host: key.host, until: hit.until, resetKnown: hit.known, cause: .limitedAgain,
            maxWait: rateLimits.policy.maxWait, waited: budget.waited)
    }
}
