/// Observers of a pull, e.g. the CLI's request log and progress line.
public struct PullEvents: Sendable {
    /// Called after every HTTP exchange.
    public var requestFinished: @Sendable (RequestRecord) -> Void
    /// Called after every page is decoded.
    public var pageFinished: @Sendable (_ feed: String) -> Void
    /// Called when a feed completes (successfully or not).
    public var feedFinished: @Sendable (FeedResult) -> Void
    /// Called before a request waits for a rate limit (once per waiting request; not for the
    /// short paces spread before a limit).
    public var rateLimitWait: @Sendable (RateLimitWait) -> Void

    /// Creates observers; each defaults to doing nothing.
    public init(
        requestFinished: @escaping @Sendable (RequestRecord) -> Void = { _ in },
        pageFinished: @escaping @Sendable (String) -> Void = { _ in },
        feedFinished: @escaping @Sendable (FeedResult) -> Void = { _ in },
        rateLimitWait: @escaping @Sendable (RateLimitWait) -> Void = { _ in }
    ) {
        self.requestFinished = requestFinished
        self.pageFinished = pageFinished
        self.feedFinished = feedFinished
        self.rateLimitWait = rateLimitWait
    }
}
