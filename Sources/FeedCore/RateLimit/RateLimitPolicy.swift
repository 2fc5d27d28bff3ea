public import Foundation

/// How the engine treats API rate limits (GitHub's `X-RateLimit-*` headers, `Retry-After`, 429).
///
/// A response is a rate limit when it is a `429`, or a `403` that carries `X-RateLimit-Remaining: 0`,
/// a `Retry-After`, or a message about a (secondary) rate limit. Then every request with the same
/// origin and credential waits until the limit resets — `Retry-After`, else
/// `X-RateLimit-Reset`, else ``defaultPause`` — as long as the feed's waits for rate limits stay
/// within ``maxWait`` in total over the pull; otherwise the feed stops with a message saying when
/// to pull again. A request that waited for a limit and meets a limit again stops its feed at once.
///
/// Before the limit is hit, when fewer than ``slowDownBelow`` requests remain, requests are spread
/// evenly until the reset instead of spending the rest at once; after a response with
/// `X-RateLimit-Remaining: 0` and no reset time, the next request waits ``defaultPause``. Both
/// paces are courtesies: they wait only what is left of the feed's budget, then send. Any other
/// `403` is reported at once as what it is (bad credentials, missing `User-Agent`, forbidden).
public struct RateLimitPolicy: Sendable {
    /// The longest one feed waits for rate limits in total over a pull (`rate_limit_wait`).
    public var maxWait: Duration
    /// Remaining requests below which requests are spread until the reset.
    public var slowDownBelow: Int
    /// The pause after a rate limit that says nothing about when it ends.
    public var defaultPause: Duration
    /// The wall clock (`X-RateLimit-Reset` is epoch seconds).
    public var now: @Sendable () -> Date
    /// Waits (tests inject a clock that advances ``now`` instead of sleeping).
    public var sleep: @Sendable (Duration) async throws -> Void
    /// Rate limits met elsewhere (by other `feedagg serve` workers sharing the feeds), asked before
    /// each request with the request's host (`host` or `host:port`) and its feed: a pause that ends
    /// later than now holds that request exactly as a limit this engine met would (waited for
    /// within ``maxWait``, else the feed stops). `nil`: none.
    public var sharedPause: (@Sendable (_ host: String, _ feed: String) -> SharedRateLimitPause?)? = nil
    /// Told at once of every rate limit with an end this engine meets (a 429 or 403 limit, or
    /// `X-RateLimit-Remaining: 0` with a reset): the request's host, its feed, and when the limit
    /// ends. `feedagg serve` shares it with the other workers right away. `nil`: nobody is told.
    public var limitMet: (@Sendable (_ host: String, _ feed: String, _ until: Date) -> Void)? = nil

    /// Creates a policy: wait at most 60 s per feed, slow down below 10 remaining, 60 s default pause.
    public init(
        maxWait: Duration = .seconds(60), slowDownBelow: Int = 10, defaultPause: Duration = .seconds(60),
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.maxWait = maxWait
        self.slowDownBelow = slowDownBelow
        self.defaultPause = defaultPause
        self.now = now
        self.sleep = sleep
    }

    /// A rate limit met elsewhere (``sharedPause``).
    public struct SharedRateLimitPause: Sendable, Equatable {
        /// When it ends.
        public var until: Date
        /// Who met it, for messages (`feed 'x' of worker …`).
        public var setBy: String

        /// Creates one.
        public init(until: Date, setBy: String) {
            self.until = until
            self.setBy = setBy
        }
    }

    /// A rate-limit response: until when it lasts, and whether the server said so.
    struct Hit: Sendable, Equatable {
        /// The end of the limit (the server's, or now + ``RateLimitPolicy/defaultPause``).
        var until: Date
        /// Whether the server gave the end (`Retry-After`, `X-RateLimit-Reset`).
        var known: Bool
    }

    /// Whether `response` is a rate limit, and until when (`nil`: not a rate limit).
    public func limit(of response: HTTPResponse) -> Date? { hit(of: response)?.until }

    /// Whether `response` is a rate limit, until when and whether that end is the server's.
    func hit(of response: HTTPResponse) -> Hit? {
        guard response.status == 429 || response.status == 403 else { return nil }
        let now = self.now()
        let remaining = Self.remaining(response.headers)
        let reset = Self.reset(response.headers)
        let retryAfter = RetryPolicy.retryAfter(response.headers, now: now)
        if response.status == 403 {
            let message = HTTPStatus.message(fromBody: response.body)?.lowercased() ?? ""
            guard remaining == 0 || retryAfter != nil || message.contains("rate limit") else { return nil }
        }
        if let retryAfter { return Hit(until: now.addingTimeInterval(retryAfter.seconds), known: true) }
        if remaining == 0, let reset, reset > now { return Hit(until: reset, known: true) }
        return Hit(until: now.addingTimeInterval(defaultPause.seconds), known: false)
    }

    /// `X-RateLimit-Remaining`, when present and a number.
    static func remaining(_ headers: HTTPHeaders) -> Int? {
        headers["X-RateLimit-Remaining"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// `X-RateLimit-Reset` (epoch seconds) as a date.
    static func reset(_ headers: HTTPHeaders) -> Date? {
        headers["X-RateLimit-Reset"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            .map(Date.init(timeIntervalSince1970:))
    }
}
