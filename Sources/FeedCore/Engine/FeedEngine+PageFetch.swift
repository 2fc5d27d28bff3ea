import Foundation

extension FeedEngine {
    /// One page's request as ``FeedEngine/fetch(_:number:feed:budget:notModifiedEndsFeed:conditional:retention:head:)``
    /// works through it: the request with its validators, and what every request record and
    /// feed error of the page names. The one place both are built.
    struct PageFetch: Sendable {
        /// The page: its URL as the walk asked for it (secrets not redacted), its 1-based position
        /// in the walk, its feed, and the feed's retry and rate-limit budget.
        let url: URL, number: Int, feed: Feed, budget: RetryBudget
        /// The request sent (credentials and validators included) and the rate-limit bucket it
        /// counts against (origin and credential).
        let request: HTTPRequest, limitKey: RateLimitKey
        /// The URL as logs and errors show it (secrets redacted), where the pull memory keeps the
        /// page's response, and the remembered response the request revalidates (`nil` when the
        /// request is unconditional).
        let loggedURL: String, memoryKey: String, cached: CachedResponse?
        /// The request carries validators given by the walk (``ResumePoint/Head``), not a
        /// remembered response: a `304` to it says only "unchanged" (there is nothing to rebuild).
        var headCheck = false

        /// The request log's record of one exchange for this page.
        func record(
            status: Int?, bytes: Int, duration: Duration, fromCache: Bool = false, failure: String? = nil,
            redirects: [String] = [], cancelled: Bool = false
        ) -> RequestRecord {
            RequestRecord(
                feed: feed.name, method: request.method, url: loggedURL, status: status, bytes: bytes,
                duration: duration, fromCache: fromCache, failure: failure, redirects: redirects, cancelled: cancelled,
                shown: feed.source.requestDescription(for: url))
        }

        /// The feed's failure at this page, after `attempts` tries of its request.
        func failure(_ reason: FeedError.Reason, attempts: Int = 1) -> FeedError {
            var failure = FeedError(feed: feed.name, url: url, page: number, reason: reason)
            failure.request = feed.source.requestDescription(for: url)
            failure.attempts = attempts
            return failure
        }
    }
}
