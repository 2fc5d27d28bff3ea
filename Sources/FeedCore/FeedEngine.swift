public import Foundation

/// A declared feed, ready to pull: its name, its source instance and common settings.
public struct Feed: Sendable {
    /// The source instance built from the feed's parameters.
    public var source: any FeedSource
    /// Name, base URL, page size, page limit.
    public var context: FeedContext

    /// Creates a feed.
    public init(source: any FeedSource, context: FeedContext) {
        self.source = source
        self.context = context
    }

    /// The feed's name.
    public var name: String { context.name }
}

/// One HTTP exchange as the engine saw it, for `--verbose` logs (never carries credentials).
public struct RequestRecord: Sendable {
    /// The feed that made the request.
    public var feed: String
    /// The method.
    public var method: String
    /// The URL, secrets redacted.
    public var url: String
    /// The status, or `nil` when no response arrived.
    public var status: Int?
    /// Body bytes received.
    public var bytes: Int
    /// Wall time of the exchange.
    public var duration: Duration
    /// Whether the response came from a local cache.
    public var fromCache: Bool
    /// The transport failure, if any.
    public var failure: String?
}

/// Observers of a pull, e.g. the CLI's request log and progress line.
public struct PullEvents: Sendable {
    /// Called after every HTTP exchange.
    public var requestFinished: @Sendable (RequestRecord) -> Void
    /// Called after every page is decoded.
    public var pageFinished: @Sendable (_ feed: String) -> Void
    /// Called when a feed completes (successfully or not).
    public var feedFinished: @Sendable (FeedResult) -> Void

    /// Creates observers; each defaults to doing nothing.
    public init(
        requestFinished: @escaping @Sendable (RequestRecord) -> Void = { _ in },
        pageFinished: @escaping @Sendable (String) -> Void = { _ in },
        feedFinished: @escaping @Sendable (FeedResult) -> Void = { _ in }
    ) {
        self.requestFinished = requestFinished
        self.pageFinished = pageFinished
        self.feedFinished = feedFinished
    }
}

/// The outcome of pulling one feed. Items fetched before a failure are kept.
public struct FeedResult: Sendable {
    /// The feed's name.
    public var feed: String
    /// Its source type.
    public var source: String
    /// Items in wire order, pages in order; empty when the pull handed its pages to a ``PageSink``.
    public var items: [FeedItem]
    /// How many items the pages held (``items`` may be empty, see above).
    public var itemCount: Int = 0
    /// Pages fetched and decoded.
    public var pages: Int
    /// HTTP requests made.
    public var requests: Int
    /// Why the feed failed, if it did.
    public var error: FeedError?
    /// Non-fatal remarks (`stopped at max_pages = 3; more pages exist`).
    public var notes: [String]
    /// Wall time of the feed's pull.
    public var duration: Duration
    /// Page 1 answered `304 Not Modified`: the feed is unchanged since the last pull and
    /// ``items`` is empty (the caller's store holds them).
    public var unchanged: Bool = false
    /// Responses worth remembering for the next pull's conditional requests, in page order.
    public var cacheable: [CachedResponse] = []
    /// The walk read every page the API lists, unfiltered: no failure, no `max_pages` stop, no
    /// incremental stop, no `since` watermark. Only then may a store conclude that stored items
    /// the pull did not return are gone from the API.
    public var complete: Bool = false
    /// An incremental pull stopped after this page because it held only items already stored
    /// unchanged (the older pages are stored too).
    public var stoppedAtStoredPage: Int?
    /// An incremental pull asked only for items updated since this date (the API's `since` filter).
    public var watermark: Date?
    /// The pull continued an interrupted one from this page (see ``ResumePoint``).
    public var resumedAtPage: Int?
    /// Pages requested before page 1 answered, because the store remembered the page count.
    public var speculativePages: Int = 0

    /// Creates a result.
    public init(
        feed: String, source: String, items: [FeedItem] = [], pages: Int = 0, requests: Int = 0,
        error: FeedError? = nil, notes: [String] = [], duration: Duration = .zero
    ) {
        self.feed = feed
        self.source = source
        self.items = items
        self.itemCount = items.count
        self.pages = pages
        self.requests = requests
        self.error = error
        self.notes = notes
        self.duration = duration
    }

    /// Whether the pull completed without error.
    public var succeeded: Bool { error == nil }
}

/// How much of a feed a pull re-reads when a ``PullMemory`` remembers an earlier pull.
public enum RefreshMode: Sendable, Equatable {
    /// Page 1 answering `304 Not Modified` ends the feed's pull (unchanged); a date-ordered feed
    /// stops after a page holding only items stored unchanged; a `since` filter is sent where the
    /// source offers one.
    case incremental
    /// Every page is walked from page 1 (conditional requests are still sent, and a `304` is
    /// served from the remembered body); no watermark, no early stop.
    case full
}

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
    /// The HTTP seam.
    public var transport: any HTTPTransport
    /// Pages of one feed in flight at once during fan-out.
    public var pageConcurrency: Int
    /// Observers.
    public var events: PullEvents
    /// The clock used for durations.
    public var clock: ContinuousClock
    /// Responses remembered from earlier pulls (conditional requests), if any.
    public var memory: (any PullMemory)?
    /// Incremental (default) or full refresh.
    public var refresh: RefreshMode
    /// Retries of failed requests.
    public var retry: RetryPolicy
    /// Per-host rate limits, shared by every feed this engine pulls.
    let rateLimits: HostRateLimits

    /// Creates an engine.
    public init(
        transport: any HTTPTransport, pageConcurrency: Int = 16, events: PullEvents = PullEvents(),
        memory: (any PullMemory)? = nil, refresh: RefreshMode = .incremental, retry: RetryPolicy = RetryPolicy(),
        rateLimit: RateLimitPolicy = RateLimitPolicy()
    ) {
        self.rateLimits = HostRateLimits(policy: rateLimit)
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
        var result = FeedResult(
            feed: feed.name, source: feed.source.typeName, items: walk.items, pages: walk.pages,
            requests: walk.requests + walk.budget.resends, error: walk.error, notes: walk.notes, duration: clock.now - start)
        result.itemCount = walk.itemCount
        result.unchanged = walk.unchanged
        result.cacheable = walk.cacheable
        result.complete = walk.reachedEnd && walk.error == nil && walk.watermark == nil
        result.stoppedAtStoredPage = walk.stoppedAtStoredPage
        result.watermark = walk.watermark
        result.resumedAtPage = walk.resumedAt
        result.speculativePages = walk.speculated
        events.feedFinished(result)
        return result
    }

    /// The request the engine sends for `url` on behalf of `feed`.
    public func request(for url: URL, feed: Feed) -> HTTPRequest {
        var headers = feed.source.requestHeaders
        if Origin(url) == Origin(feed.context.baseURL) {
            for field in feed.source.credentialHeaders { headers.set(field.name, field.value) }
        }
        return HTTPRequest(url: url, headers: headers)
    }

    /// Fetches and decodes one page; never throws, failures come back as ``FeedError``.
    ///
    /// A `304` answers with the remembered body, except when `notModifiedEndsFeed` (page 1 of an
    /// incremental pull whose last pull succeeded): then it comes back as ``Fetched/notModified``.
    func fetch(
        _ url: URL, number: Int, feed: Feed, budget: RetryBudget, notModifiedEndsFeed: Bool = false,
        conditional: Bool = true, keepBody: Bool = true
    ) async -> Result<Fetched, FeedError> {
        var request = request(for: url, feed: feed)
        let key = Redaction.redact(url)
        let memoryKey = memory?.key(for: url) ?? key
        let cached = conditional ? memory?.cachedResponse(for: memoryKey) : nil
        if let cached, cached.isRevalidatable {
            if let etag = cached.etag { request.headers.set("If-None-Match", etag) }
            if let lastModified = cached.lastModified { request.headers.set("If-Modified-Since", lastModified) }
        }
        var started = clock.now
        var response: HTTPResponse
        var attempt = 1
        var limitedAnswers = 0
        let host = url.port.map { "\(url.host ?? ""):\($0)" } ?? (url.host ?? "")
        while true {
            if let until = await admit(host) {
                var failure = FeedError(
                    feed: feed.name, url: url, page: number,
                    reason: .rateLimited(host: host, until: until, maxWait: rateLimits.policy.maxWait))
                failure.attempts = attempt + limitedAnswers - 1
                return .failure(failure)
            }
            started = clock.now
            if attempt + limitedAnswers > 1 { budget.resent() }
            do {
                response = try await transport.send(request)
            } catch {
                let transportError =
                    (error as? TransportError)
                    ?? TransportError(kind: .other, url: url, detail: String(describing: error))
                let retrying = retry.retries(transportError.kind) ? await pause(after: attempt, budget: budget) : nil
                events.requestFinished(
                    RequestRecord(
                        feed: feed.name, method: request.method, url: key, status: nil, bytes: 0,
                        duration: clock.now - started, fromCache: false,
                        failure: transportError.description + Self.retryNote(retrying, attempt: attempt)))
                if let retrying, await wait(retrying) {
                    attempt += 1
                    continue
                }
                var failure = FeedError(feed: feed.name, url: url, page: number, reason: .transport(transportError))
                failure.attempts = attempt
                return .failure(failure)
            }
            let limitedUntil = rateLimits.policy.limit(of: response)
            rateLimits.observe(response, host: host, limitedUntil: limitedUntil)
            if let limitedUntil, limitedAnswers < 5 {
                // Every request to the host now waits for the reset (or is refused past the wait).
                limitedAnswers += 1
                events.requestFinished(
                    RequestRecord(
                        feed: feed.name, method: request.method, url: key, status: response.status,
                        bytes: response.body.count, duration: clock.now - started, fromCache: false,
                        failure: "rate limited until \(ISO8601.string(from: limitedUntil))"))
                continue
            }
            guard retry.retryableStatuses.contains(response.status),
                let retrying = await pause(
                    after: attempt, budget: budget, retryAfter: RetryPolicy.retryAfter(response.headers))
            else { break }
            events.requestFinished(
                RequestRecord(
                    feed: feed.name, method: request.method, url: key, status: response.status,
                    bytes: response.body.count, duration: clock.now - started, fromCache: false,
                    failure: "HTTP \(response.status)" + Self.retryNote(retrying, attempt: attempt)))
            guard await wait(retrying) else { break }
            attempt += 1
        }
        var storedPage: DecodedPage?
        /// A 304 whose header fields changed the stored ones: remember the updated entry.
        var refreshed: CachedResponse?
        if response.status == 304, var cached {
            // A 304's own header fields update the stored ones (RFC 9111 §4.3.4): a listing whose
            // page 1 is unchanged may still announce a new rel="last".
            let fresh = response.headers.values(for: "Link")
            // …and then page 1 being unchanged does not mean the listing is: walk it.
            let linksChanged = !fresh.isEmpty && fresh != cached.headers.values(for: "Link")
            if !fresh.isEmpty {
                var headers = HTTPHeaders()
                for field in cached.headers where field.name.lowercased() != "link" { headers.add(field.name, field.value) }
                for value in fresh { headers.add("Link", value) }
                cached.headers = headers
                if linksChanged { refreshed = cached }
            }
            if notModifiedEndsFeed && !linksChanged {
                events.requestFinished(
                    RequestRecord(
                        feed: feed.name, method: request.method, url: key, status: 304, bytes: response.body.count,
                        duration: clock.now - started, fromCache: true, failure: nil))
                return .success(.notModified)
            }
            if let rebuild = cached.storedPage {
                // The store keeps the decoded page, not the body. A page it can no longer rebuild
                // (items pruned since) is asked for again without validators.
                guard let page = rebuild() else {
                    budget.resent()
                    return await fetch(
                        url, number: number, feed: feed, budget: budget, conditional: false, keepBody: keepBody)
                }
                storedPage = page
                response = HTTPResponse(status: 200, headers: cached.headers, body: Data(), url: response.url, fromCache: true)
            } else {
                response = HTTPResponse(
                    status: 200, headers: cached.headers, body: cached.body, url: response.url, fromCache: true)
            }
        }
        events.requestFinished(
            RequestRecord(
                feed: feed.name, method: request.method, url: key, status: response.fromCache ? 304 : response.status,
                bytes: response.body.count, duration: clock.now - started, fromCache: response.fromCache, failure: nil))
        guard (200..<300).contains(response.status) else {
            var failure = FeedError(
                feed: feed.name, url: url, page: number,
                reason: .httpStatus(
                    response.status,
                    message: HTTPStatus.message(fromBody: response.body).map { scrub($0, feed: feed, url: url) }))
            failure.attempts = attempt
            return .failure(failure)
        }
        let page = FetchedPage(number: number, url: url, response: response)
        do {
            let decoded = try storedPage ?? feed.source.decodePage(page)
            let outcome = PageOutcome(
                number: number, url: url, headers: response.headers, totals: decoded.totals,
                itemCount: decoded.items.count, pageSize: feed.context.pageSize, nextCursor: decoded.nextCursor)
            events.pageFinished(feed.name)
            var remembered: CachedResponse? = refreshed
            let etag = response.headers["ETag"]
            let lastModified = response.headers["Last-Modified"]
            if remembered == nil, etag != nil || lastModified != nil {
                var headers = HTTPHeaders()
                for field in response.headers where field.name.lowercased() == "link" { headers.add(field.name, field.value) }
                // A page sink keeps the decoded page, not the body: do not hold it until the page is saved.
                remembered = CachedResponse(
                    key: memoryKey, etag: etag, lastModified: lastModified, headers: headers,
                    body: keepBody ? response.body : Data())
            }
            return .success(.page(decoded, outcome, remembered))
        } catch let error as PageDecodeError {
            return .failure(FeedError(feed: feed.name, url: url, page: number, reason: .decode(error)))
        } catch {
            return .failure(
                FeedError(
                    feed: feed.name, url: url, page: number,
                    reason: .decode(PageDecodeError(path: "$", String(describing: error)))))
        }
    }
}

extension FeedEngine {
    /// The wait before retrying after failed try `attempt`, taken from the feed's budget; `nil`
    /// when no retry is left (tries or budget exhausted).
    func pause(after attempt: Int, budget: RetryBudget, retryAfter: Duration? = nil) async -> Duration? {
        guard attempt < retry.maxAttempts else { return nil }
        let wait = retry.delay(afterAttempt: attempt, retryAfter: retryAfter)
        return budget.take(wait) ? wait : nil
    }

    /// Waits while `host` is paused by a rate limit; the date it is limited until when that is
    /// longer than the policy lets the engine wait (the request must not be sent).
    func admit(_ host: String) async -> Date? {
        for _ in 0..<100 {
            switch rateLimits.admit(host) {
            case .go: return nil
            case .refuse(let until): return until
            case .wait(let duration):
                do { try await rateLimits.policy.sleep(duration) } catch { return nil }
            }
        }
        return nil
    }

    /// Sleeps `duration` with the policy's clock; `false` when the task was cancelled.
    func wait(_ duration: Duration) async -> Bool {
        do {
            try await retry.sleep(duration)
            return !Task.isCancelled
        } catch {
            return false
        }
    }

    /// ` · retrying in 0.8 s (try 2 of 3)` for the request log.
    static func retryNote(_ wait: Duration?, attempt: Int) -> String {
        guard let wait else { return "" }
        let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
        return " · retrying in \(String(format: "%.1f", seconds)) s (try \(attempt + 1))"
    }

    /// `text` with every secret of the feed (credential header values, secret query values of
    /// `url`) replaced by `REDACTED`: servers sometimes echo what they were sent.
    func scrub(_ text: String, feed: Feed, url: URL) -> String {
        var secrets: [String] = []
        for field in feed.source.credentialHeaders {
            secrets.append(field.value)
            if let space = field.value.lastIndex(of: " ") { secrets.append(String(field.value[field.value.index(after: space)...])) }
        }
        for item in URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []
        where Redaction.secretQueryParameters.contains(item.name.lowercased()) {
            if let value = item.value { secrets.append(value) }
        }
        var out = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) where secret.count >= 4 {
            out = out.replacingOccurrences(of: secret, with: "REDACTED")
        }
        return out
    }
}

/// A fetched page, or page 1 unchanged since the last pull.
enum Fetched: Sendable {
    case page(DecodedPage, PageOutcome, CachedResponse?)
    case notModified
}

/// The mutable state of one feed's walk.
private struct Walk {
    let engine: FeedEngine
    let feed: Feed
    /// Where accepted pages go; without one they are collected in ``items``.
    let sink: (any PageSink)?
    var items: [FeedItem] = []
    var itemCount = 0
    /// Pages fetched and accepted by this walk.
    var pages = 0
    /// Pages stored before this walk began (a resumed walk continues their numbering).
    var pageBase = 0
    var requests = 0
    var error: FeedError?
    var notes: [String] = []
    var visited: Set<String> = []
    /// The latest visited URLs, oldest first, for a resume point (at most ``resumeVisitedLimit``):
    /// a cycle through older pages is still caught by the resumed walk, one lap later.
    var recentVisited: [String] = []
    static let resumeVisitedLimit = 64
    var unchanged = false
    var cacheable: [CachedResponse] = []
    /// The walk reached a page with no next page.
    var reachedEnd = false
    var stoppedAtStoredPage: Int?
    var watermark: Date?
    var resumedAt: Int?
    /// Pages requested before page 1 answered, from the page count the store remembered.
    var speculated = 0
    var prefetched: [Int: Task<Result<Fetched, FeedError>, Never>] = [:]
    /// Stop at a page of stored items (date-ordered feed with a baseline).
    var stopAtStored: IncrementalBaseline?
    /// Page 1 answering 304 ends the pull (the store holds the feed as of a successful pull).
    var trustNotModified = false
    /// What the feed may still wait on retries.
    let budget: RetryBudget
    /// Page 1's outcome (or a resumed walk's first page), and the page count page 1 revealed.
    var first: PageOutcome?
    var expectedPages: Int?

    init(engine: FeedEngine, feed: Feed, sink: (any PageSink)?) {
        self.engine = engine
        self.feed = feed
        self.sink = sink
        self.budget = RetryBudget(engine.retry.maxTotalDelay)
    }

    var strategy: any PaginationStrategy { feed.source.pagination }
    var maxPages: Int { feed.context.maxPages ?? Int.max }
    /// The number the next fetched page gets.
    var nextNumber: Int { pageBase + pages + 1 }

    /// Where a later pull continues after the page just accepted: the remaining pages when the
    /// count is known, else the next link; `nil` when nothing follows.
    func resumePoint(remaining: [URL]?, after outcome: PageOutcome) -> ResumePoint? {
        let urls: [URL]
        let known: Bool
        if let remaining, !remaining.isEmpty {
            urls = remaining
            known = true
        } else if let next = strategy.nextPage(after: outcome), !visited.contains(next.absoluteString) {
            urls = [next]
            known = false
        } else {
            return nil
        }
        return ResumePoint(
            nextPage: outcome.number + 1, urls: urls, knownCount: known, expectedPages: expectedPages,
            visited: recentVisited, watermark: watermark)
    }

    /// Accepts a page; `false` (and the feed's error set, the page's items not taken) when the page
    /// contradicts the walk so far (empty while more pages follow, or inconsistent with page 1), or
    /// when the sink could not take it. `remaining`: the pages still to fetch when the count is known.
    mutating func accept(
        _ decoded: DecodedPage, _ outcome: PageOutcome, _ remembered: CachedResponse?, remaining: [URL]? = nil
    ) async -> Bool {
        if let problem = FeedPager.problem(
            decoded, outcome, first: self.first ?? outcome, expectedPages: expectedPages, strategy: strategy)
        {
            error = FeedError(feed: feed.name, url: outcome.url, page: outcome.number, reason: .paginationInconsistent(problem))
            return false
        }
        visited.insert(outcome.url.absoluteString)
        recentVisited.append(outcome.url.absoluteString)
        if recentVisited.count > Self.resumeVisitedLimit { recentVisited.removeFirst() }
        // A resumed walk checks its pages against the first one it fetched.
        if self.first == nil { self.first = outcome }
        if let sink {
            let page = AcceptedPage(
                number: outcome.number, items: decoded.items, totals: decoded.totals, nextCursor: decoded.nextCursor,
                cacheable: remembered, resume: resumePoint(remaining: remaining, after: outcome))
            do {
                try await sink.accept(page, of: feed)
            } catch {
                self.error = FeedError(
                    feed: feed.name, url: outcome.url, page: outcome.number, reason: .notSaved("\(error)"))
                return false
            }
        } else {
            // An entry without a body can only be served by a store that rebuilds its pages.
            if let remembered, !remembered.body.isEmpty || remembered.storedPage == nil { cacheable.append(remembered) }
            items.append(contentsOf: decoded.items)
        }
        itemCount += decoded.items.count
        pages += 1
        return true
    }

    /// Whether the walk stops after `page` (incremental: every item already stored unchanged).
    mutating func stopsAt(_ page: DecodedPage, number: Int) -> Bool {
        guard let baseline = stopAtStored, !page.items.isEmpty, page.items.allSatisfy(baseline.isStoredUnchanged)
        else { return false }
        stoppedAtStoredPage = number
        return true
    }

    mutating func run() async {
        var firstURL = feed.source.firstPageURL
        if engine.refresh == .incremental, let baseline = engine.memory?.baseline(for: feed.name) {
            trustNotModified = true
            if feed.source.ordering == .newestFirst { stopAtStored = baseline }
            // One second of overlap: `since` compares at second resolution on some APIs.
            if let newest = baseline.newestUpdate,
                let filtered = feed.source.firstPageURL(updatedSince: newest.addingTimeInterval(-1))
            {
                firstURL = filtered
                watermark = newest.addingTimeInterval(-1)
            }
        }
        let firstPage = strategy.firstPage(firstURL, pageSize: feed.context.pageSize)
        speculate(from: firstPage)
        requests += 1
        let fetched = await fetchOrRecord(firstPage, number: 1, notModifiedEndsFeed: trustNotModified)
        defer { cancelSpeculation() }
        if case .success(.notModified) = fetched {
            unchanged = true
            return
        }
        guard case .success(.page(let decoded, let outcome, let remembered)) = fetched else { return }
        first = outcome
        let remaining = stopAtStored == nil ? strategy.remainingPages(after: outcome) : nil
        if let remaining { expectedPages = remaining.count + 1 }
        let allowed = remaining.map { Array($0.prefix(max(0, maxPages - 1))) }
        guard await accept(decoded, outcome, remembered, remaining: allowed) else { return }
        if stopsAt(decoded, number: 1) { return }
        var last = outcome

        // An incremental walk of a date-ordered feed goes page by page, to stop at stored items.
        if let remaining, let allowed, !remaining.isEmpty {
            if allowed.count < remaining.count {
                notes.append("stopped at max_pages = \(maxPages) of \(remaining.count + 1) pages")
            }
            guard let tail = await fanOut(allowed) else { return }
            last = tail
            if allowed.count < remaining.count { return }
        }
        await walkSequentially(from: last)
    }

    /// Continues an interrupted pull from `point`: the remaining pages at once when their count
    /// was known, else the next link and on from there.
    mutating func resume(_ point: ResumePoint) async {
        resumedAt = point.nextPage
        pageBase = point.nextPage - 1
        expectedPages = point.expectedPages
        visited = Set(point.visited)
        recentVisited = Array(point.visited.suffix(Self.resumeVisitedLimit))
        watermark = point.watermark
        if engine.refresh == .incremental, feed.source.ordering == .newestFirst,
            let baseline = engine.memory?.baseline(for: feed.name)
        {
            stopAtStored = baseline
        }
        if point.knownCount {
            let allowed = Array(point.urls.prefix(max(0, maxPages - pageBase)))
            if allowed.count < point.urls.count {
                notes.append("stopped at max_pages = \(maxPages) of \(pageBase + point.urls.count) pages")
            }
            guard let tail = await fanOut(allowed) else { return }
            if allowed.count < point.urls.count { return }
            await walkSequentially(from: tail)
            return
        }
        let url = point.urls[0]
        if visited.contains(url.absoluteString) {
            error = FeedError(feed: feed.name, url: url, page: nextNumber, reason: .paginationCycle)
            return
        }
        if pageBase >= maxPages {
            notes.append("stopped at max_pages = \(maxPages); more pages exist")
            return
        }
        requests += 1
        guard case .success(.page(let decoded, let outcome, let remembered)) = await fetchOrRecord(url, number: nextNumber)
        else { return }
        first = outcome
        guard await accept(decoded, outcome, remembered) else { return }
        if stopsAt(decoded, number: outcome.number) { return }
        await walkSequentially(from: outcome)
    }

    /// Follows next links from `page` until the end, a cycle, a failure or `max_pages`.
    mutating func walkSequentially(from page: PageOutcome) async {
        var current = page
        while let next = strategy.nextPage(after: current) {
            if visited.contains(next.absoluteString) {
                error = FeedError(feed: feed.name, url: next, page: nextNumber, reason: .paginationCycle)
                return
            }
            if pageBase + pages >= maxPages {
                notes.append("stopped at max_pages = \(maxPages); more pages exist")
                return
            }
            requests += 1
            guard case .success(.page(let decoded, let outcome, let remembered)) = await fetchOrRecord(next, number: nextNumber)
            else { return }
            guard await accept(decoded, outcome, remembered) else { return }
            if stopsAt(decoded, number: outcome.number) { return }
            current = outcome
        }
        reachedEnd = true
    }

    /// Fetches `urls` (the pages after the last accepted one) concurrently, bounded, and accepts
    /// them in page order as soon as each one's predecessors are in, so finished pages do not wait
    /// for the slowest. Returns the last page's outcome, or `nil` after a failure (pages before the
    /// failing one are kept; the ones after it are cancelled).
    mutating func fanOut(_ urls: [URL]) async -> PageOutcome? {
        let engine = self.engine
        let feed = self.feed
        let base = pageBase + pages
        let budget = self.budget
        let prefetched = self.prefetched
        let keepBody = sink == nil
        // Pages fetched ahead of the oldest one not yet accepted; bounds the memory a slow page costs.
        let window = max(engine.pageConcurrency * 2, 2)
        return await withTaskGroup(of: (Int, Result<Fetched, FeedError>).self) { group -> PageOutcome? in
            var done: [Int: Result<Fetched, FeedError>] = [:]
            var next = 0
            var accepted = 0
            var inFlight = 0
            var last: PageOutcome?
            while true {
                // Refill freed slots before handing pages over, so a slow sink never delays a request.
                while next < urls.count, inFlight < engine.pageConcurrency, next < accepted + window {
                    let index = next
                    let url = urls[index]
                    let number = base + index + 1
                    if let early = prefetched[number] {
                        self.prefetched[number] = nil
                        group.addTask { (index, await early.value) }
                    } else {
                        self.requests += 1
                        group.addTask {
                            (index, await engine.fetch(url, number: number, feed: feed, budget: budget, keepBody: keepBody))
                        }
                    }
                    next += 1
                    inFlight += 1
                }
                guard let (index, result) = await group.next() else { break }
                inFlight -= 1
                done[index] = result
                if done[accepted] == nil { continue }
                while let result = done.removeValue(forKey: accepted) {
                    switch result {
                    case .success(.page(let decoded, let outcome, let remembered)):
                        let rest = Array(urls[(accepted + 1)...])
                        guard await self.accept(decoded, outcome, remembered, remaining: rest) else {
                            group.cancelAll()
                            return nil
                        }
                        last = outcome
                        accepted += 1
                    case .success(.notModified):
                        group.cancelAll()
                        return nil
                    case .failure(let failure):
                        self.error = failure
                        group.cancelAll()
                        return nil
                    }
                }
                if accepted == urls.count { break }
            }
            return last
        }
    }

    /// Starts pages 2…N at once, before page 1 answers, when the store remembers that the feed
    /// had N pages, the strategy can address pages directly, and page 1 cannot end the pull by
    /// itself (no `304` shortcut, no stop at stored items, no `since` filter).
    mutating func speculate(from firstPage: URL) {
        guard !trustNotModified, stopAtStored == nil, watermark == nil,
            let known = engine.memory?.knownPageCount(for: feed.name), known >= 2
        else { return }
        let count = min(known, maxPages, engine.pageConcurrency + 1)
        guard count >= 2, let urls = strategy.speculativePages(from: firstPage, through: count) else { return }
        let engine = self.engine
        let feed = self.feed
        let budget = self.budget
        for (offset, url) in urls.enumerated() {
            let number = offset + 2
            let keepBody = sink == nil
            prefetched[number] = Task {
                await engine.fetch(url, number: number, feed: feed, budget: budget, keepBody: keepBody)
            }
        }
        speculated = urls.count
        requests += urls.count
    }

    /// Cancels speculative requests that page 1 made useless (fewer pages than remembered).
    mutating func cancelSpeculation() {
        for task in prefetched.values { task.cancel() }
        prefetched = [:]
    }

    mutating func fetchOrRecord(_ url: URL, number: Int, notModifiedEndsFeed: Bool = false) async
        -> Result<Fetched, FeedError>
    {
        let result = await engine.fetch(
            url, number: number, feed: feed, budget: budget, notModifiedEndsFeed: notModifiedEndsFeed,
            keepBody: sink == nil)
        if case .failure(let failure) = result { error = failure }
        return result
    }
}

/// Scheme, host and port of a URL, for same-origin checks.
public struct Origin: Hashable, Sendable {
    let scheme: String
    let host: String
    let port: Int

    /// The origin of `url`.
    public init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }
}
