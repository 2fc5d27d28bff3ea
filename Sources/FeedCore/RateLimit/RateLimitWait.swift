public import Foundation

/// A wait for a rate limit, reported through ``PullEvents/rateLimitWait``.
public struct RateLimitWait: Sendable, Equatable {
    /// The feed whose request waits.
    public var feed: String
    /// `host` or `host:port`.
    public var host: String
    /// When the wait ends.
    public var until: Date
    /// The feed whose response set the limit.
    public var limitedBy: String?

    /// Creates a wait.
    public init(feed: String, host: String, until: Date, limitedBy: String? = nil) {
        self.feed = feed
        self.host = host
        self.until = until
        self.limitedBy = limitedBy
    }

    /// `waiting for the rate limit of api.github.com until 2026-11-24T19:00:00Z`.
    public var message: String { "waiting for the rate limit of \(host) until \(ISO8601.string(from: until))" }
}
