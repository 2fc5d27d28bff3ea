public import Foundation

/// Walks one feed a page at a time, on demand: the building block of ``LazyUnifiedStream``.
///
/// Each ``nextPage()`` fetches the next page through the engine's own request path
/// (``FeedEngine``'s retries, rate limits, redaction and conditional requests when it has a
/// ``PullMemory``), follows the feed's ``PaginationStrategy``, and applies the same safety rules as
/// a full pull: a next link to a page already fetched stops the feed with a pagination-cycle error,
/// an empty page while more are announced or linked and a page contradicting page 1 stop it with an
/// inconsistency error, and `max_pages` stops it without an error, with a note.
///
/// Unlike a full pull (``FeedEngine``), it never fans out, never stops at stored pages and sends no
/// `since` watermark: it reads from the newest page on, only as far as it is asked to.
///
/// A pager is a value: copy it into the task that fetches, and keep the copy that comes back.
///
/// ```swift
/// var pager = FeedPager(feed: feed, engine: engine)
/// while let items = await pager.nextPage() {
///     // … items of page `pager.pages`, in wire order
/// }
/// if let error = pager.error { print(error) }
/// ```
public struct FeedPager: Sendable {
    /// The feed this pager walks, one page per ``nextPage()`` call.
    public let feed: Feed
    let engine: FeedEngine
    let budget: RetryBudget

    /// The URL of the page ``nextPage()`` fetches; `nil` once the walk is over.
    public private(set) var nextURL: URL?
    /// Pages fetched and accepted.
    public private(set) var pages = 0
    /// Requests sent, retries and answers to rate limits included.
    public var requests: Int { sent + budget.resends }
    /// Why the walk failed, if it did (the pages before it stay valid).
    public private(set) var error: FeedError?
    /// Non-fatal remarks (`stopped at max_pages = 3 of 10 pages`).
    public private(set) var notes: [String] = []
    /// The walk read the last page the API lists (no failure, no `max_pages` stop).
    public private(set) var reachedEnd = false
    /// The page count page 1 revealed (`rel="last"`, `total_pages`…), when it revealed one.
    public private(set) var announcedPages: Int?

    private var sent = 0
    private var first: PageOutcome?
    private var visited: Set<String> = []

    /// A pager at page 1 of `feed`, fetching through `engine`.
    public init(feed: Feed, engine: FeedEngine) {
        self.feed = feed
        self.engine = engine
        self.budget = RetryBudget(engine.retry.maxTotalDelay, rateLimitWait: engine.rateLimits.policy.maxWait)
        self.nextURL = feed.source.pagination.firstPage(feed.source.firstPageURL, pageSize: feed.context.pageSize)
    }

    /// Whether ``nextPage()`` would fetch nothing more: the end, a failure or `max_pages`.
    public var isFinished: Bool { nextURL == nil }

    /// Fetches the next page and returns its items in wire order; `nil` when the walk is over
    /// (see ``reachedEnd``, ``error`` and ``notes`` for why).
    public mutating func nextPage() async -> [FeedItem]? {
        guard let url = nextURL else { return nil }
        let strategy = feed.source.pagination
        if visited.contains(url.absoluteString) {
            return stop(error: FeedError(feed: feed.name, url: url, page: pages + 1, reason: .paginationCycle))
        }
        if let maxPages = feed.context.maxPages, pages >= maxPages {
            let total = announcedPages.map { " of \($0) pages" } ?? "; more pages exist"
            notes.append("stopped at max_pages = \(maxPages)\(total)")
            return stop(error: nil)
        }
        sent += 1
        let fetched = await engine.fetch(url, number: pages + 1, feed: feed, budget: budget)
        let decoded: DecodedPage
        let outcome: PageOutcome
        switch fetched {
        case .failure(let failure):
            return stop(error: failure)
        case .success(.notModified):
            // Not asked for (`notModifiedEndsFeed` is false): a 304 comes back as the remembered page.
            return stop(error: nil)
        case .success(.page(let page, let pageOutcome, _)):
            decoded = page
            outcome = pageOutcome
        }
        if first == nil {
            first = outcome
            announcedPages = strategy.remainingPages(after: outcome).map { $0.count + 1 }
        }
        if let problem = Self.problem(
            decoded, outcome, first: first ?? outcome, expectedPages: announcedPages, strategy: strategy)
        {
            let reason = FeedError.Reason.paginationInconsistent(problem)
            return stop(error: FeedError(feed: feed.name, url: outcome.url, page: outcome.number, reason: reason))
        }
        pages += 1
        visited.insert(url.absoluteString)
        nextURL = strategy.nextPage(after: outcome)
        if nextURL == nil { reachedEnd = true }
        return decoded.items
    }

    /// Ends the walk (with `error`, if any) and returns `nil`.
    private mutating func stop(error: FeedError?) -> [FeedItem]? {
        if let error { self.error = error }
        nextURL = nil
        return nil
    }

    /// Why an accepted page would contradict the walk: empty while more pages are announced or
    /// linked, or inconsistent with page 1 as the strategy judges it. The one rule set both the
    /// engine's walk and the pager apply.
    static func problem(
        _ decoded: DecodedPage, _ outcome: PageOutcome, first: PageOutcome, expectedPages: Int?,
        strategy: any PaginationStrategy
    ) -> String? {
        if decoded.items.isEmpty {
            if let expected = expectedPages, outcome.number < expected {
                return "page \(outcome.number) is empty, but page 1 announced \(expected) pages"
            }
            if strategy.nextPage(after: outcome) != nil {
                return "page \(outcome.number) is empty, but it links to a next page"
            }
        }
        return strategy.inconsistency(in: outcome, first: first, expectedPages: expectedPages)
    }
}
