import Foundation

// MARK: - Fetching one page: admit → send with retries → revalidate → decode → remember

extension FeedEngine {
    /// Fetches and decodes one page; never throws, failures come back as ``FeedError``.
    ///
    /// The steps, each a function below: ``send(_:)`` waits for the page's turn under the rate
    /// limits and sends, retrying failures; ``revalidate(_:of:endsFeed:)`` turns a `304` into the
    /// remembered page; the status is checked; ``decode(_:of:storedPage:refreshed:retention:)``
    /// maps the body and ``remember(_:of:keepBody:)`` makes the cache entry for the next pull.
    ///
    /// - Parameters:
    ///   - number: The page's 1-based position in the walk, for errors and the source.
    ///   - budget: The feed's retry and rate-limit budget, shared by all its pages.
    ///   - notModifiedEndsFeed: Page 1 of an incremental pull whose last pull succeeded: a `304`
    ///     then comes back as ``Fetched/notModified`` instead of the remembered body.
    ///   - conditional: Send the remembered validators (`If-None-Match`, `If-Modified-Since`).
    ///   - retention: What the page keeps: the body in the cache entry (no page sink: the result
    ///     holds the cache), the items' raw JSON.
    ///   - head: Validators to send instead of the remembered ones (a resumed walk asking whether
    ///     page 1 moved since the interrupted walk fetched it); a `304` then comes back as
    ///     ``Fetched/notModified``.
    func fetch(
        _ url: URL, number: Int, feed: Feed, budget: RetryBudget, notModifiedEndsFeed: Bool = false,
        conditional: Bool = true, retention: PageRetention = .everything, head: ResumePoint.Head? = nil
    ) async -> Result<Fetched, FeedError> {
        let page = pageFetch(url, number: number, feed: feed, budget: budget, conditional: conditional, head: head)
        let sent: Sent
        switch await send(page) {
        case .failure(let failure): return .failure(failure)
        case .success(let answer): sent = answer
        }
        let response: HTTPResponse
        let storedPage: DecodedPage?
        let refreshed: CachedResponse?
        switch revalidate(sent.response, of: page, endsFeed: notModifiedEndsFeed) {
        case .notModified:
            events.requestFinished(
                page.record(
                    status: 304, bytes: sent.response.body.count, duration: clock.now - sent.started, fromCache: true))
            return .success(.notModified)
        case .refetch:
            budget.resent()
            return await fetch(url, number: number, feed: feed, budget: budget, conditional: false, retention: retention)
        case .answer(let answer, let rebuilt, let updated):
            (response, storedPage, refreshed) = (answer, rebuilt, updated)
        }
        events.requestFinished(
            page.record(
                status: response.fromCache ? 304 : response.status, bytes: response.body.count,
                duration: clock.now - sent.started, fromCache: response.fromCache, redirects: Self.hops(response)))
        guard (200..<300).contains(response.status) else {
            let message = HTTPStatus.message(fromBody: response.body).map { scrub($0, feed: feed, url: url) }
            return .failure(page.failure(.httpStatus(response.status, message: message), attempts: sent.attempt))
        }
        return decode(response, of: page, storedPage: storedPage, refreshed: refreshed, retention: retention)
    }

    /// The page's request with the remembered validators, and what its records and errors name.
    func pageFetch(
        _ url: URL, number: Int, feed: Feed, budget: RetryBudget, conditional: Bool, head: ResumePoint.Head? = nil
    ) -> PageFetch {
        var request = request(for: url, feed: feed)
        let loggedURL = Redaction.shown(url)
        let memoryKey = memory?.key(for: url) ?? Redaction.redact(url)
        if let head {
            if let etag = head.etag { request.headers.set("If-None-Match", etag) }
            if let lastModified = head.lastModified { request.headers.set("If-Modified-Since", lastModified) }
            var page = PageFetch(
                url: url, number: number, feed: feed, budget: budget, request: request,
                limitKey: RateLimitKey(request, credentialFields: feed.source.credentialHeaders.map(\.name)),
                loggedURL: loggedURL, memoryKey: memoryKey, cached: nil)
            page.headCheck = true
            return page
        }
        let cached = conditional ? memory?.cachedResponse(for: memoryKey) : nil
        if let cached, cached.isRevalidatable {
            if let etag = cached.etag { request.headers.set("If-None-Match", etag) }
            if let lastModified = cached.lastModified { request.headers.set("If-Modified-Since", lastModified) }
        }
        return PageFetch(
            url: url, number: number, feed: feed, budget: budget, request: request,
            limitKey: RateLimitKey(request, credentialFields: feed.source.credentialHeaders.map(\.name)),
            loggedURL: loggedURL, memoryKey: memoryKey, cached: cached)
    }

    /// The last answer to a page's request, once retries and rate limits are done with it.
    struct Sent {
        /// The answer (any status: only retryable ones were retried).
        var response: HTTPResponse
        /// When the try that got it started.
        var started: ContinuousClock.Instant
        /// Tries sent for it, rate-limited answers not counted.
        var attempt: Int
    }

    /// Sends the page's request in its turn under the rate limits, retrying transport failures and
    /// retryable statuses within the feed's budget; every try but the last is logged here.
    ///
    /// A rate-limited answer is sent again after the limit's wait (not counted as a try); a second
    /// one, or one met after waiting, stops the feed.
    func send(_ page: PageFetch) async -> Result<Sent, FeedError> {
        var attempt = 1
        var limitedAnswers = 0
        while true {
            let turn = await admit(page.limitKey, feed: page.feed.name, budget: page.budget.rateLimit)
            if case .refused(let stop) = turn {
                return .failure(page.failure(.rateLimited(stop), attempts: attempt + limitedAnswers - 1))
            }
            let started = clock.now
            if attempt + limitedAnswers > 1 { page.budget.resent() }
            let response: HTTPResponse
            do {
                response = try await transport.send(page.request)
                page.budget.sentOne()
            } catch {
                let transportError =
                    (error as? TransportError)
                    ?? TransportError(kind: .other, url: page.url, detail: String(describing: error))
                // A request cancelled because the walk no longer needs it is not counted.
                if transportError.kind != .cancelled { page.budget.sentOne() }
                let retrying = retry.retries(transportError.kind) ? await pause(after: attempt, budget: page.budget) : nil
                events.requestFinished(
                    page.record(
                        status: nil, bytes: 0, duration: clock.now - started,
                        failure: transportError.description + Self.retryNote(retrying, attempt: attempt),
                        cancelled: transportError.kind == .cancelled))
                if let retrying, await wait(retrying) {
                    attempt += 1
                    continue
                }
                return .failure(page.failure(.transport(transportError), attempts: attempt))
            }
            let hit = rateLimits.policy.hit(of: response)
            rateLimits.observe(response, key: page.limitKey, hit: hit, feed: page.feed.name)
            if let hit {
                // Every request of the key now waits for the end (or is refused past the budget);
                // this one stops its feed if it had already waited for a limit.
                limitedAnswers += 1
                events.requestFinished(
                    page.record(
                        status: response.status, bytes: response.body.count, duration: clock.now - started,
                        failure: "rate limited until \(ISO8601.string(from: hit.until))", redirects: Self.hops(response)))
                guard case .admitted(waited: false) = turn, limitedAnswers <= 2 else {
                    let stop = limitedAgain(hit, key: page.limitKey, budget: page.budget.rateLimit)
                    return .failure(page.failure(.rateLimited(stop), attempts: attempt + limitedAnswers - 1))
                }
                continue
            }
            let answer = Sent(response: response, started: started, attempt: attempt)
            guard retry.retryableStatuses.contains(response.status),
                let retrying = await pause(
                    after: attempt, budget: page.budget, retryAfter: RetryPolicy.retryAfter(response.headers))
            else { return .success(answer) }
            events.requestFinished(
                page.record(
                    status: response.status, bytes: response.body.count, duration: clock.now - started,
                    failure: "HTTP \(response.status)" + Self.retryNote(retrying, attempt: attempt),
                    redirects: Self.hops(response)))
            guard await wait(retrying) else { return .success(answer) }
            attempt += 1
        }
    }

    /// What a `304 Not Modified` stands for.
    enum Revalidation {
        /// Page 1 is unchanged and that ends the feed's pull.
        case notModified
        /// The store can no longer rebuild the page (items pruned since): ask again without validators.
        case refetch
        /// The response to go on with: the server's own, or the remembered one as a `200` marked
        /// `fromCache`, with the page the store rebuilt (if it keeps pages, not bodies) and the
        /// cache entry to store again when the `304` changed its `Link` fields.
        case answer(HTTPResponse, storedPage: DecodedPage?, refreshed: CachedResponse?)
    }

    /// Turns a `304` into the remembered response, merging the `304`'s `Link` fields into it;
    /// any other answer passes through.
    ///
    /// - Parameter endsFeed: A `304` whose links did not change ends the pull (``Revalidation/notModified``).
    func revalidate(_ response: HTTPResponse, of page: PageFetch, endsFeed: Bool) -> Revalidation {
        if response.status == 304, page.headCheck { return .notModified }
        guard response.status == 304, var cached = page.cached else {
            return .answer(response, storedPage: nil, refreshed: nil)
        }
        // A 304's own header fields update the stored ones (RFC 9111 §4.3.4): a listing whose
        // page 1 is unchanged may still announce a new rel="last".
        let fresh = response.headers.values(for: "Link")
        // …and then page 1 being unchanged does not mean the listing is: walk it.
        let linksChanged = !fresh.isEmpty && fresh != cached.headers.values(for: "Link")
        var refreshed: CachedResponse?
        if !fresh.isEmpty {
            var headers = HTTPHeaders()
            for field in cached.headers where field.name.lowercased() != "link" { headers.add(field.name, field.value) }
            for value in fresh { headers.add("Link", value) }
            cached.headers = headers
            if linksChanged { refreshed = cached }
        }
        if endsFeed && !linksChanged { return .notModified }
        guard let rebuild = cached.storedPage else {
            let served = HTTPResponse(
                status: 200, headers: cached.headers, body: cached.body, url: response.url, fromCache: true)
            return .answer(served, storedPage: nil, refreshed: refreshed)
        }
        // The store keeps the decoded page, not the body. A page it can no longer rebuild
        // (items pruned since) is asked for again without validators.
        guard let stored = rebuild() else { return .refetch }
        let served = HTTPResponse(status: 200, headers: cached.headers, body: Data(), url: response.url, fromCache: true)
        return .answer(served, storedPage: stored, refreshed: refreshed)
    }

    /// Maps a successful response into the page's items (or takes the page the store rebuilt),
    /// with the cache entry to remember for the next pull.
    func decode(
        _ response: HTTPResponse, of page: PageFetch, storedPage: DecodedPage?, refreshed: CachedResponse?,
        retention: PageRetention
    ) -> Result<Fetched, FeedError> {
        let feed = page.feed
        do {
            var decoded =
                try storedPage
                ?? feed.source.decodePage(FetchedPage(number: page.number, url: page.url, response: response))
            // Here, in the page's own task: the items no longer hold the body once this returns.
            if retention == .itemsWithoutRaw {
                for index in decoded.items.indices { decoded.items[index].dropRaw() }
            }
            let outcome = PageOutcome(
                number: page.number, url: page.url, headers: response.headers, totals: decoded.totals,
                itemCount: decoded.items.count, pageSize: feed.context.pageSize, nextCursor: decoded.nextCursor)
            events.pageFinished(feed.name)
            return .success(
                .page(decoded, outcome, refreshed ?? remember(response, of: page, keepBody: retention == .everything)))
        } catch let error as PageDecodeError {
            return .failure(page.failure(.decode(error)))
        } catch {
            return .failure(page.failure(.decode(PageDecodeError(path: "$", String(describing: error)))))
        }
    }

    /// The cache entry that makes the next pull's request for this page conditional: the
    /// validators and `Link` fields, and the body unless a page sink keeps the decoded page
    /// (then the body is not held until the page is saved); `nil` without validators.
    func remember(_ response: HTTPResponse, of page: PageFetch, keepBody: Bool) -> CachedResponse? {
        let etag = response.headers["ETag"]
        let lastModified = response.headers["Last-Modified"]
        guard etag != nil || lastModified != nil else { return nil }
        var headers = HTTPHeaders()
        for field in response.headers where field.name.lowercased() == "link" { headers.add(field.name, field.value) }
        return CachedResponse(
            key: page.memoryKey, etag: etag, lastModified: lastModified, headers: headers,
            body: keepBody ? response.body : Data())
    }
}


// MARK: - Retry waits and request-log text

extension FeedEngine {
    /// The wait before retrying after failed try `attempt`, taken from the feed's budget; `nil`
    /// when no retry is left (tries or budget exhausted).
    func pause(after attempt: Int, budget: RetryBudget, retryAfter: Duration? = nil) async -> Duration? {
        guard attempt < retry.maxAttempts else { return nil }
        let wait = retry.delay(afterAttempt: attempt, retryAfter: retryAfter)
        return budget.take(wait) ? wait : nil
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

    /// The redirects of `response` for the request log: `301 → <url>`, secrets redacted.
    static func hops(_ response: HTTPResponse) -> [String] {
        response.redirects.map { "\($0.status) → \(Redaction.shown($0.location))" }
    }

    /// ` · retrying in 0.8 s (try 2)` for the request log: `attempt` is the try that failed, the
    /// note names the next one; empty when no retry follows.
    static func retryNote(_ wait: Duration?, attempt: Int) -> String {
        guard let wait else { return "" }
        let seconds = wait.seconds
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
        where Redaction.isShownSecret(parameter: item.name) {
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
