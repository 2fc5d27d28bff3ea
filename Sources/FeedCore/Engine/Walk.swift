import Foundation

/// The mutable state of one feed's walk, grouped by what it is for.
struct Walk {
    let engine: FeedEngine
    let feed: Feed
    /// Where accepted pages go; without one they are collected in ``Haul/items``.
    let sink: (any PageSink)?
    /// What each fetched page keeps, from ``sink``.
    var retention: PageRetention { PageRetention(sink: sink) }
    /// What the feed may still wait on retries and rate limits.
    let budget: RetryBudget

    // MARK: - State

    /// Where the walk is: its page numbering and what page 1 said about the listing.
    struct Position {
        /// Pages stored before this walk began (a resumed walk continues their numbering).
        var pageBase = 0
        /// Pages fetched and accepted by this walk.
        var pages = 0
        /// Page 1's outcome (or a resumed walk's first page): later pages are checked against it.
        var first: PageOutcome?
        /// The page count page 1 revealed, if any.
        var expectedPages: Int?
        /// Page 1's validators as this walk (or the interrupted walk it resumes) fetched it.
        var head: ResumePoint.Head?
        /// The number the next fetched page gets.
        var nextNumber: Int { pageBase + pages + 1 }
    }

    /// What the walk has taken so far.
    struct Haul {
        /// Accepted items in page order; stays empty with a page sink.
        var items: [FeedItem] = []
        /// Items accepted, counted with or without a sink.
        var itemCount = 0
        /// Responses to remember for the next pull's conditional requests (without a sink).
        var cacheable: [CachedResponse] = []
        /// The ids of the items a resumed walk accepted (`nil` for a walk from page 1): where its
        /// re-walk of the head stops (``Walk/recheckHead(watermark:)``).
        var resumedIDs: Set<String>?
    }

    /// The URLs already fetched: a next link to one of them is a cycle.
    struct Visited {
        /// At most this many of the latest URLs go into a resume point.
        static let resumeLimit = 64
        var all: Set<String> = []
        /// The latest visited URLs, oldest first, for a resume point (at most ``resumeLimit``):
        /// a cycle through older pages is still caught by the resumed walk, one lap later.
        var recent: [String] = []

        func contains(_ url: URL) -> Bool { all.contains(url.absoluteString) }

        mutating func insert(_ url: URL) {
            all.insert(url.absoluteString)
            recent.append(url.absoluteString)
            if recent.count > Self.resumeLimit { recent.removeFirst() }
        }
    }

    /// How an incremental pull may cut the walk short.
    struct Shortcuts {
        /// Page 1 answering 304 ends the pull (the store holds the feed as of a successful pull).
        var trustNotModified = false
        /// Stop at a page of stored items (date-ordered feed with a baseline).
        var stopAtStored = false
        /// The stored items' digests, read once, when the first page to compare arrives (a `304` on
        /// page 1 needs none); `nil` before, or when the store could not give them.
        var stored: StoredDigests?
        /// Whether ``stored`` was read (or its read failed: the walk then does not stop early).
        var storedRead = false
        /// Page 1 asked only for items updated since this date (the API's `since` filter).
        var watermark: Date?
    }

    /// How the walk went, for the feed's result.
    struct Ending {
        var error: FeedError?
        /// Non-fatal remarks (`stopped at max_pages = 3; more pages exist`).
        var notes: [String] = []
        /// Page 1 answered 304 and that ended the pull.
        var unchanged = false
        /// The walk reached a page with no next page.
        var reachedEnd = false
        /// The incremental stop: the page that held only stored items.
        var stoppedAtStoredPage: Int?
        /// The page a resumed walk started at.
        var resumedAt: Int?
        /// Pages requested before page 1 answered, from the page count the store remembered.
        var speculated = 0
    }

    var position = Position()
    var haul = Haul()
    var visited = Visited()
    var shortcuts = Shortcuts()
    var ending = Ending()
    /// Pages 2…N started before page 1 answered (see ``speculate(from:)``), by page number.
    var prefetched: [Int: Task<Result<Fetched, FeedError>, Never>] = [:]

    // MARK: - Set-up and result

    init(engine: FeedEngine, feed: Feed, sink: (any PageSink)?) {
        self.engine = engine
        self.feed = feed
        self.sink = sink
        self.budget = RetryBudget(engine.retry.maxTotalDelay, rateLimitWait: engine.rateLimits.policy.maxWait)
    }

    /// The feed's result: the one place it is built.
    func result(requests: Int, duration: Duration) -> FeedResult {
        FeedResult(
            feed: feed.name, source: feed.source.typeName, items: haul.items, itemCount: haul.itemCount,
            pages: position.pages, requests: requests, error: ending.error, notes: ending.notes, duration: duration,
            unchanged: ending.unchanged, cacheable: haul.cacheable,
            complete: ending.reachedEnd && ending.error == nil && shortcuts.watermark == nil,
            stoppedAtStoredPage: ending.stoppedAtStoredPage, watermark: shortcuts.watermark,
            resumedAtPage: ending.resumedAt, speculativePages: ending.speculated)
    }

    var strategy: any PaginationStrategy { feed.source.pagination }
    var maxPages: Int { feed.context.maxPages ?? Int.max }
    var nextNumber: Int { position.nextNumber }

    // MARK: - Accepting pages

    /// Where a later pull continues after the page just accepted: the remaining pages when the
    /// count is known, else the next link; `nil` when nothing follows.
    func resumePoint(remaining: [URL]?, after outcome: PageOutcome) -> ResumePoint? {
        let urls: [URL]
        let known: Bool
        if let remaining, !remaining.isEmpty {
            urls = remaining
            known = true
        } else if let next = strategy.nextPage(after: outcome), !visited.contains(next) {
            urls = [next]
            known = false
        } else {
            return nil
        }
        return ResumePoint(
            nextPage: outcome.number + 1, urls: urls, knownCount: known, expectedPages: position.expectedPages,
            visited: visited.recent, watermark: shortcuts.watermark, head: position.head)
    }

    /// Accepts a page; `false` (and the feed's error set, the page's items not taken) when the page
    /// contradicts the walk so far (empty while more pages follow, or inconsistent with page 1), or
    /// when the sink could not take it. `remaining`: the pages still to fetch when the count is known.
    mutating func accept(
        _ decoded: DecodedPage, _ outcome: PageOutcome, _ remembered: CachedResponse?, remaining: [URL]? = nil
    ) async -> Bool {
        // The digests this page is compared with in ``stopsAt(_:number:)``, read before the sink
        // takes the walk's first page, so they are the feed as the last pull left it.
        readStoredDigestsIfNeeded()
        if let problem = FeedPager.problem(
            decoded, outcome, first: position.first ?? outcome, expectedPages: position.expectedPages,
            strategy: strategy)
        {
            ending.error = FeedError(
                feed: feed.name, url: outcome.url, page: outcome.number, reason: .paginationInconsistent(problem))
            return false
        }
        visited.insert(outcome.url)
        if haul.resumedIDs != nil { for item in decoded.items { haul.resumedIDs?.insert(item.id) } }
        // A resumed walk checks its pages against the first one it fetched.
        if position.first == nil { position.first = outcome }
        if let sink {
            let page = AcceptedPage(
                number: outcome.number, items: decoded.items, totals: decoded.totals, nextCursor: decoded.nextCursor,
                cacheable: remembered, resume: resumePoint(remaining: remaining, after: outcome))
            do {
                try await sink.accept(page, of: feed)
            } catch {
                ending.error = FeedError(
                    feed: feed.name, url: outcome.url, page: outcome.number, reason: .notSaved("\(error)"))
                return false
            }
        } else {
            // An entry without a body can only be served by a store that rebuilds its pages.
            if let remembered, !remembered.body.isEmpty || remembered.storedPage == nil { haul.cacheable.append(remembered) }
            haul.items.append(contentsOf: decoded.items)
        }
        haul.itemCount += decoded.items.count
        position.pages += 1
        return true
    }

    /// Whether the walk stops after `page` (incremental: every item already stored unchanged).
    mutating func stopsAt(_ page: DecodedPage, number: Int) -> Bool {
        guard shortcuts.stopAtStored, let stored = shortcuts.stored, !page.items.isEmpty,
            page.items.allSatisfy(stored.isStoredUnchanged)
        else { return false }
        ending.stoppedAtStoredPage = number
        return true
    }

    /// Reads the stored items' digests once, when the walk may stop at stored items.
    mutating func readStoredDigestsIfNeeded() {
        guard shortcuts.stopAtStored, !shortcuts.storedRead else { return }
        shortcuts.storedRead = true
        shortcuts.stored = engine.memory?.storedDigests(for: feed.name)
    }

    // MARK: - Walking: from page 1, from a resume point, link by link

    /// Walks the feed from page 1: incremental set-up (baseline, `since` watermark, speculative
    /// pages), page 1, then the remaining pages concurrently when page 1 revealed their count, else
    /// link by link. Before page 1's request only the feed's row is read (and, for a source with a
    /// `since` filter, its newest stored date); the stored digests wait for a changed page.
    mutating func run() async {
        var firstURL = feed.source.firstPageURL
        if engine.refresh == .incremental, engine.memory?.baseline(for: feed.name) != nil {
            shortcuts.trustNotModified = true
            if feed.source.ordering == .newestFirst { shortcuts.stopAtStored = true }
            // One second of overlap: `since` compares at second resolution on some APIs. The probe
            // asks the source whether it has a `since` filter before the store is asked for the date.
            if feed.source.firstPageURL(updatedSince: Date(timeIntervalSince1970: 0)) != nil,
                let newest = engine.memory?.newestUpdate(for: feed.name),
                let filtered = feed.source.firstPageURL(updatedSince: newest.addingTimeInterval(-1))
            {
                firstURL = filtered
                shortcuts.watermark = newest.addingTimeInterval(-1)
            }
        }
        let firstPage = strategy.firstPage(firstURL, pageSize: feed.context.pageSize)
        speculate(from: firstPage)
        let fetched = await fetchOrRecord(firstPage, number: 1, notModifiedEndsFeed: shortcuts.trustNotModified)
        defer { cancelSpeculation() }
        if case .success(.notModified) = fetched {
            ending.unchanged = true
            return
        }
        guard case .success(.page(let decoded, let outcome, let remembered)) = fetched else { return }
        position.first = outcome
        position.head = ResumePoint.Head(etag: remembered?.etag, lastModified: remembered?.lastModified)
        let remaining = shortcuts.stopAtStored ? nil : strategy.remainingPages(after: outcome)
        if let remaining { position.expectedPages = remaining.count + 1 }
        let allowed = remaining.map { Array($0.prefix(max(0, maxPages - 1))) }
        guard await accept(decoded, outcome, remembered, remaining: allowed) else { return }
        if stopsAt(decoded, number: 1) { return }
        var last = outcome

        // An incremental walk of a date-ordered feed goes page by page, to stop at stored items.
        if let remaining, let allowed, !remaining.isEmpty {
            if allowed.count < remaining.count {
                ending.notes.append("stopped at max_pages = \(maxPages) of \(remaining.count + 1) pages")
            }
            guard let tail = await fanOut(allowed) else { return }
            last = tail
            if allowed.count < remaining.count { return }
        }
        await walkSequentially(from: last)
    }

    /// Continues an interrupted pull from `point`: the remaining pages at once when their count
    /// was known, else the next link and on from there; then, when that went well, asks whether
    /// the listing's head moved since the interrupted walk fetched it (``recheckHead(watermark:)``).
    mutating func resume(_ point: ResumePoint) async {
        haul.resumedIDs = []
        position.head = point.head
        await walkOn(from: point)
        if ending.error == nil, point.nextPage > 1 { await recheckHead(watermark: point.watermark) }
        haul.resumedIDs = nil
    }

    /// The resumed part of ``resume(_:)``: the pages from `point` on.
    private mutating func walkOn(from point: ResumePoint) async {
        ending.resumedAt = point.nextPage
        position.pageBase = point.nextPage - 1
        position.expectedPages = point.expectedPages
        visited = Visited(all: Set(point.visited), recent: Array(point.visited.suffix(Visited.resumeLimit)))
        shortcuts.watermark = point.watermark
        if engine.refresh == .incremental, feed.source.ordering == .newestFirst,
            engine.memory?.baseline(for: feed.name) != nil
        {
            shortcuts.stopAtStored = true
        }
        if point.knownCount {
            let allowed = Array(point.urls.prefix(max(0, maxPages - position.pageBase)))
            if allowed.count < point.urls.count {
                ending.notes.append("stopped at max_pages = \(maxPages) of \(position.pageBase + point.urls.count) pages")
            }
            guard let tail = await fanOut(allowed) else { return }
            if allowed.count < point.urls.count { return }
            await walkSequentially(from: tail)
            return
        }
        let url = point.urls[0]
        if visited.contains(url) {
            var cycle = FeedError(feed: feed.name, url: url, page: nextNumber, reason: .paginationCycle)
            cycle.request = feed.source.requestDescription(for: url)
            ending.error = cycle
            return
        }
        if position.pageBase >= maxPages {
            ending.notes.append("stopped at max_pages = \(maxPages); more pages exist")
            return
        }
        guard case .success(.page(let decoded, let outcome, let remembered)) = await fetchOrRecord(url, number: nextNumber)
        else { return }
        position.first = outcome
        guard await accept(decoded, outcome, remembered) else { return }
        if stopsAt(decoded, number: outcome.number) { return }
        await walkSequentially(from: outcome)
    }

    /// Follows next links from `page` until the end, a cycle, a failure or `max_pages`.
    mutating func walkSequentially(from page: PageOutcome) async {
        var current = page
        while let next = strategy.nextPage(after: current) {
            if visited.contains(next) {
                var cycle = FeedError(feed: feed.name, url: next, page: nextNumber, reason: .paginationCycle)
                cycle.request = feed.source.requestDescription(for: next)
                ending.error = cycle
                return
            }
            if position.pageBase + position.pages >= maxPages {
                ending.notes.append("stopped at max_pages = \(maxPages); more pages exist")
                return
            }
            guard case .success(.page(let decoded, let outcome, let remembered)) = await fetchOrRecord(next, number: nextNumber)
            else { return }
            guard await accept(decoded, outcome, remembered) else { return }
            if stopsAt(decoded, number: outcome.number) { return }
            current = outcome
        }
        ending.reachedEnd = true
    }

    /// Ends a resumed walk: its pages before the resume point were fetched by the interrupted pull,
    /// perhaps long before, and items added at (or removed from) the listing's head since then
    /// shifted the pages this walk fetched, so one may have slipped past both walks (a refresh
    /// after a failed pull would then miss a new item until the next one).
    ///
    /// Page 1 is asked for again, with the validators it had in the interrupted walk
    /// (``ResumePoint/Head``) when there are any: a `304` ends the walk, the head did not move. Any
    /// page that comes back is accepted, and the walk goes on page by page until a page whose
    /// items are all held already (accepted by this walk, or in the store, staged by the
    /// interrupted walk included), the end, or `max_pages`: a page of the interrupted part that
    /// did not move, or one this walk fetched, ends it. The page count stays that of the listing
    /// (these pages are not counted twice).
    mutating func recheckHead(watermark: Date?) async {
        let walked = position.pages
        defer { position.pages = walked }
        let firstURL = watermark.flatMap { feed.source.firstPageURL(updatedSince: $0) } ?? feed.source.firstPageURL
        var url = strategy.firstPage(firstURL, pageSize: feed.context.pageSize)
        var number = 1
        // The pages of this re-walk are checked against its own page 1.
        position.first = nil
        position.expectedPages = nil
        var held: Set<String>?
        var rewalked = 0
        // Whether a page brought items not held: the head moved (else page 1 came back unchanged,
        // from an API without validators, and one page was read, nothing walked again).
        var moved = false
        defer {
            if moved {
                ending.notes.append(
                    "page 1 changed since the interrupted pull: \(rewalked) page\(rewalked == 1 ? "" : "s") from the head walked again")
            }
        }
        while number <= maxPages {
            let head = number == 1 ? position.head : nil
            let fetched = await engine.fetch(
                url, number: number, feed: feed, budget: budget, retention: retention, head: head)
            if case .failure(let failure) = fetched { ending.error = failure }
            // A `304` (the head did not move) or a failure (recorded) ends it.
            guard case .success(.page(let decoded, let outcome, let remembered)) = fetched else { return }
            // Read once, when a page came back (before it is accepted: its new items are not held).
            if held == nil { held = engine.memory?.heldItemIDs(for: feed.name) ?? [] }
            let stored = held ?? []
            let fetchedHere = haul.resumedIDs ?? []
            let known = !decoded.items.isEmpty
                && decoded.items.allSatisfy { fetchedHere.contains($0.id) || stored.contains($0.id) }
            guard await accept(decoded, outcome, remembered) else { return }
            rewalked += 1
            if !known { moved = true }
            guard !known, let next = strategy.nextPage(after: outcome) else { return }
            url = next
            number += 1
        }
    }

    // MARK: - Concurrent pages: fan-out and speculation

    /// Fetches `urls` (the pages after the last accepted one) concurrently, bounded, and accepts
    /// them in page order as soon as each one's predecessors are in, so finished pages do not wait
    /// for the slowest. Returns the last page's outcome, or `nil` after a failure (pages before the
    /// failing one are kept; the ones after it are cancelled).
    mutating func fanOut(_ urls: [URL]) async -> PageOutcome? {
        let engine = self.engine
        let feed = self.feed
        let base = position.pageBase + position.pages
        let budget = self.budget
        let prefetched = self.prefetched
        let retention = self.retention
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
                        group.addTask {
                            (index, await engine.fetch(url, number: number, feed: feed, budget: budget, retention: retention))
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
                        self.ending.error = failure
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
        guard !shortcuts.trustNotModified, !shortcuts.stopAtStored, shortcuts.watermark == nil,
            let known = engine.memory?.knownPageCount(for: feed.name), known >= 2
        else { return }
        let count = min(known, maxPages, engine.pageConcurrency + 1)
        guard count >= 2, let urls = strategy.speculativePages(from: firstPage, through: count) else { return }
        let engine = self.engine
        let feed = self.feed
        let budget = self.budget
        let retention = self.retention
        for (offset, url) in urls.enumerated() {
            let number = offset + 2
            prefetched[number] = Task {
                await engine.fetch(url, number: number, feed: feed, budget: budget, retention: retention)
            }
        }
        ending.speculated = urls.count
    }

    /// Cancels speculative requests that page 1 made useless (fewer pages than remembered).
    mutating func cancelSpeculation() {
        for task in prefetched.values { task.cancel() }
        prefetched = [:]
    }

    // MARK: - Fetching

    /// Fetches one page through the engine, recording its failure as the walk's error.
    ///
    /// - Parameter notModifiedEndsFeed: Page 1 of an incremental pull: a `304` ends the walk.
    mutating func fetchOrRecord(_ url: URL, number: Int, notModifiedEndsFeed: Bool = false) async
        -> Result<Fetched, FeedError>
    {
        let result = await engine.fetch(
            url, number: number, feed: feed, budget: budget, notModifiedEndsFeed: notModifiedEndsFeed,
            retention: retention)
        if case .failure(let failure) = result { ending.error = failure }
        return result
    }
}
