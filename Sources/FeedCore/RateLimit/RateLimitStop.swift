public import Foundation

/// Why a rate limit stopped a feed, and when to pull again (``FeedError/Reason/rateLimited(_:)``).
public struct RateLimitStop: Sendable, Equatable {
    /// Why the feed stopped.
    public enum Cause: Sendable, Equatable {
        /// The limit lasts longer than what is left of the feed's `rate_limit_wait`.
        case beyondWait
        /// The request waited for the limit and met a limit again.
        case limitedAgain
    }

    /// `host` or `host:port`.
    public var host: String
    /// When the limit ends (the server's time, or the default pause when it gave none).
    public var until: Date
    /// Whether the server gave ``until`` (`Retry-After`, `X-RateLimit-Reset`).
    public var resetKnown: Bool
    /// Why the feed stopped.
    public var cause: Cause
    /// The feed's `rate_limit_wait`.
    public var maxWait: Duration
    /// What the feed had already waited for rate limits in this pull.
    public var waited: Duration
    /// The other feed whose response set the limit, when it was not this one.
    public var pausedBy: String?

    /// Creates a stop.
    public init(
        host: String, until: Date, resetKnown: Bool, cause: Cause, maxWait: Duration, waited: Duration = .zero,
        pausedBy: String? = nil
    ) {
        self.host = host
        self.until = until
        self.resetKnown = resetKnown
        self.cause = cause
        self.maxWait = maxWait
        self.waited = waited
        self.pausedBy = pausedBy
    }

    /// The cause as one clause, e.g. `rate limited by api.github.com until 2026-11-24T19:00:00Z,
    /// longer than feedagg waits (rate_limit_wait = 60 s): pull again after that time`.
    public var message: String {
        let until = ISO8601.string(from: self.until)
        var text: String
        if let pausedBy {
            text = "paused by the rate limit that feed '\(pausedBy)' hit on \(host) until \(until)"
        } else if cause == .limitedAgain && !resetKnown {
            text = "rate limited by \(host)"
        } else {
            text = "rate limited by \(host) until \(until)"
        }
        switch cause {
        case .limitedAgain:
            text += " again after waiting \(Self.seconds(waited)) for it"
            return text + (resetKnown ? ": pull again after that time" : ", and it gives no reset time: pull again later")
        case .beyondWait:
            text += waited > .zero
                ? ", longer than feedagg still waits (rate_limit_wait = \(Self.seconds(maxWait)), \(Self.seconds(waited)) already waited)"
                : ", longer than feedagg waits (rate_limit_wait = \(Self.seconds(maxWait)))"
            return text + ": pull again after that time"
        }
    }

    /// `60 s`, `7.5 s`.
    static func seconds(_ duration: Duration) -> String {
        let value = duration.seconds
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
