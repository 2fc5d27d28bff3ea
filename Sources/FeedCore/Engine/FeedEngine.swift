package import Foundation

/// The engine: walks a feed's pages with its pagination strategy through a transport.
///
/// When page 1 reveals the page count, the remaining pages are fetched concurrently (at most
/// ``pageConcurrency`` at once) and still delivered in page order; otherwise the walk follows
/// next links one by one, refusing to revisit a URL.
///
/// With a ``memory``, requests are conditional (`If-None-Match`, `If-Modified-Since`) and, in
/// ``RefreshMode/incremental`` mode, a feed whose page 1 is unchanged costs one request; a
/// date-ordered feed with stored items is walked page by page and stops at the first page whose
/// items are all stored unchanged.
public struct FeedEngine: Sendable {
    /// Sends the requests: libcurl, a replay server's client, or a test double.
    public var transport: any HTTPTransport
    /// Pages of one feed in flight at once during fan-out.
    public var pageConcurrency: Int
    /// Callbacks for every request, page and finished feed (the CLI's request log and progress).
    public var events: PullEvents
    /// The clock used for durations.
    public var clock: ContinuousClock
    /// Responses remembered from earlier pulls (conditional requests), if any.
    public var memory: (any PullMemory)?
    /// Incremental (default) or full refresh.
    public var refresh: RefreshMode
    /// Retries of failed requests.
    public var retry: RetryPolicy
    /// Rate limits per origin and credential, shared by every feed this engine pulls.
    let rateLimits: RateLimits

    /// Creates an engine.
    ///
    /// - Parameters:
    ///   - pageConcurrency: Pages of one feed in flight at once once page 1 revealed the page count
    ///     (at least 1); feeds themselves are always pulled concurrently.
    ///   - memory: Earlier pulls' responses (the store): with it, requests are conditional and an
    ///     incremental pull may stop early; without it every page is fetched in full.
    ///   - rateLimit: When an answer counts as a rate limit and how long a feed may wait for limits
    ///     in total; the limits it meets are shared by every feed this engine pulls.
    public init(
        transport: any HTTPTransport, pageConcurrency: Int = 16, events: PullEvents = PullEvents(),
        memory: (any PullMemory)? = nil, refresh: RefreshMode = .incremental, retry: RetryPolicy = RetryPolicy(),
        rateLimit: RateLimitPolicy = RateLimitPolicy()
    ) {
        self.rateLimits = RateLimits(policy: rateLimit)
        self.transport = transport
        self.pageConcurrency = max(1, pageConcurrency)
        self.events = events
        self.clock = ContinuousClock()
        self.memory = memory
        self.refresh = refresh
        self.retry = retry
    }

    /// Pulls every feed concurrently; results are in the order of `feeds`.
    public func pull(_ feeds: [Feed]) async -> [FeedResult] {
        await withTaskGroup(of: (Int, FeedResult).self) { group in
            for (index, feed) in feeds.enumerated() {
                group.addTask { (index, await self.pull(feed)) }
            }
            var results = [FeedResult?](repeating: nil, count: feeds.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    /// Pulls one feed.
    ///
    /// - Parameters:
    ///   - resume: Where an interrupted earlier pull stopped: the walk continues there instead of
    ///     fetching page 1.
    ///   - sink: Receives every accepted page, in page order, as soon as it is accepted; the
    ///     result's ``FeedResult/items`` then stay empty, so memory is bounded by the pages in
    ///     flight. Without a sink the items are collected in the result.
    public func pull(_ feed: Feed, resumingAt resume: ResumePoint? = nil, sink: (any PageSink)? = nil) async
        -> FeedResult
    {
        let start = clock.now
        var walk = Walk(engine: self, feed: feed, sink: sink)
        if let resume, !resume.urls.isEmpty {
            await walk.resume(resume)
        } else {
            await walk.run()
        }
        let result = walk.result(requests: walk.budget.sent, duration: clock.now - start)
        events.feedFinished(result)
        return result
    }

    /// The request the engine sends for `url` on behalf of `feed`.
    package func request(for url: URL, feed: Feed) -> HTTPRequest {
        var headers = feed.source.requestHeaders
        if Origin(url) == Origin(feed.context.baseURL) {
            for field in feed.source.credentialHeaders { headers.set(field.name, field.value) }
        }
        return HTTPRequest(url: url, headers: headers)
    }
}
