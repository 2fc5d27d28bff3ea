import Foundation

/// The unified stream as an `AsyncSequence` that fetches pages only as the consumer reads:
/// a k-way merge over paged feeds, newest first.
///
/// It yields the entries ``UnifiedStream/merge(_:)`` would produce over the fully fetched feeds,
/// in the same order (date newest first; ties by feed order, then wire order) and with the same
/// de-duplication (canonical URL, else id; the entry comes from the first feed carrying it and
/// lists every feed that carries it), but it yields an entry only once it is *certain*: once every
/// other feed's unfetched remainder is known to be older.
///
/// - A **date-ordered** feed (``FeedSource/ordering`` is ``ItemOrdering/newestFirst``, e.g.
///   `github.repos` with `sort: updated`) is walked one page at a time with a ``FeedPager``; its
///   unfetched pages can only hold items at or before the oldest date fetched so far, so an entry
///   strictly newer than that is safe from it.
/// - A feed that is **not date-ordered** could hold the newest item on its last page: it is fetched
///   completely (with the engine's fan-out) before the first entry is yielded.
/// - **Undated** items (organisation members) come after every dated entry, each feed in wire
///   order. Their place in ``UnifiedStream/merge(_:)`` is spread through the dated items by the
///   total count of dated items, which only a complete fetch knows; a stream read to its end
///   (every page fetched) ends with them.
///
/// **Prefetch.** The next page of a date-ordered feed is needed once the consumer reaches that
/// feed's oldest fetched date. When at most ``prefetchDistance`` entries can still be yielded before
/// that point (the feed's buffered items, plus the other feeds' buffered items newer than its
/// oldest date), the page is requested at once, concurrently, so that iteration rarely waits —
/// the infinite scroll of a table view loading the next page as the user nears the end. With a
/// ``limit``, a page is never prefetched when the entries left to yield fit before that point.
///
/// **Failures.** A feed that fails stops there: its items fetched so far are merged, the other
/// feeds go on, and the failure (feed name, URL, page, cause) is in ``Iterator/finish()``'s reports
/// and in ``PullEvents/feedFinished``.
///
/// **Cancellation.** When the consuming task is cancelled, or when the iterator is finished or
/// released, pages in flight are cancelled and nothing more is fetched.
///
/// **Known difference from the full merge.** When two feeds carry the same item with *different*
/// dates and the earlier feed's copy is on a page not fetched yet when the other copy is due, the
/// entry is yielded from the copy met first (and never again). Copies with the same date, the usual
/// case of one object listed by two feeds, are merged exactly as ``UnifiedStream/merge(_:)`` does.
///
/// ```swift
/// let stream = LazyUnifiedStream(feeds: feeds, engine: engine, prefetchDistance: 20)
/// for await entry in stream.prefix(50) {
///     print(entry.item.title)
/// }
/// ```
public struct LazyUnifiedStream: AsyncSequence, Sendable {
    /// The stream's entries.
    public typealias Element = StreamEntry
    /// Never throws: a feed's failure ends that feed only (see ``Iterator/finish()``).
    public typealias Failure = Never

    /// The feeds, in declaration order (the tie and de-duplication order).
    public let feeds: [Feed]
    /// The engine whose requests, retries, rate limits and memory every page goes through.
    public let engine: FeedEngine
    /// How close (in entries) the consumer may get to a feed's fetched end before its next page is requested.
    public let prefetchDistance: Int
    /// The most entries to yield, if bounded (`pull --limit N`); pages that cannot be needed for them are not fetched.
    public let limit: Int?

    /// A stream over `feeds` fetching through `engine`.
    public init(feeds: [Feed], engine: FeedEngine, prefetchDistance: Int = 20, limit: Int? = nil) {
        self.feeds = feeds
        self.engine = engine
        self.prefetchDistance = Swift.max(0, prefetchDistance)
        self.limit = limit.map { Swift.max(0, $0) }
    }

    /// An iterator with its own walk of every feed, starting at page 1.
    public func makeAsyncIterator() -> Iterator {
        Iterator(merge: LazyMerge(feeds: feeds, engine: engine, prefetchDistance: prefetchDistance, limit: limit))
    }

    /// Iterates the stream. Each iterator fetches on its own; release it (or call ``finish()``) to stop fetching.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let merge: LazyMerge

        /// The next entry, fetching pages as needed; `nil` at the end, at the ``LazyUnifiedStream/limit``,
        /// after ``finish()``, or when the task is cancelled.
        public mutating func next() async -> StreamEntry? {
            await merge.next()
        }

        /// Stops fetching (pages in flight are cancelled) and reports every feed: its items fetched
        /// so far in wire order, pages, requests, failure and notes. Later ``next()`` calls return `nil`.
        public func finish() async -> [FeedReport] {
            await merge.finish()
        }
    }

    /// What the stream did with one feed.
    public struct FeedReport: Sendable {
        /// The feed's items fetched (wire order), pages, requests, error and notes.
        /// ``FeedResult/complete`` is true only when every page was fetched without failure.
        public var result: FeedResult
        /// Whether the feed was walked lazily (date-ordered) rather than fetched in full.
        public var dateOrdered: Bool
        /// The page count page 1 announced (`rel="last"`, `total_pages`), if any.
        public var announcedPages: Int?
        /// More pages exist that were not fetched because no entry read needed them.
        public var stoppedEarly: Bool
    }
}

/// The state of one iterator's merge. An actor: the consumer's `next()` and the page tasks'
/// results meet here.
actor LazyMerge {
    /// A buffered dated item.
    struct Pending: Sendable {
        let item: FeedItem
        let date: Date
        let wire: Int
        let key: String
    }

    /// An undated item, waiting for the end of the dated stream.
    struct Undated: Sendable {
        let item: FeedItem
        let wire: Int
        let key: String
    }

    /// One feed's lane of the merge.
    struct Lane {
        let feed: Feed
        let ordered: Bool
        /// The pager, when no page is in flight (it travels with the task that fetches).
        var pager: FeedPager?
        var pageTask: Task<(FeedPager, [FeedItem]?), Never>?
        /// A feed that is not date-ordered: the engine's full pull.
        var fullTask: Task<FeedResult, Never>?
        /// Dated items not yielded yet, sorted so that the next one in stream order is last.
        var pending: [Pending] = []
        var undated: [Undated] = []
        /// The oldest date fetched: unfetched pages hold nothing newer.
        var frontier: Date?
        /// Every page fetched (or the feed failed, or stopped at `max_pages`).
        var finished = false
        var items: [FeedItem] = []
        var wire = 0
        var pages = 0
        var requests = 0
        var error: FeedError?
        var notes: [String] = []
        var announcedPages: Int?
        var reachedEnd = false
        var complete = false
        var started: ContinuousClock.Instant?
        var ended: ContinuousClock.Instant?
        /// When its latest page was taken (the end of a walk stopped early).
        var lastPage: ContinuousClock.Instant?
        var reported = false
        var orderWarned = false
        /// The stream cancelled the fetch in flight (finished or cancelled consumer): more pages may exist.
        var cancelled = false
    }

    let engine: FeedEngine
    let prefetchDistance: Int
    let limit: Int?
    var lanes: [Lane]
    var started = false
    var closed = false
    var yielded = 0
    /// Keys already yielded: a later copy is never yielded again.
    var yieldedKeys: Set<String> = []
    /// The first occurrence of each key among fetched items (feed order, then wire order).
    var firstOccurrence: [String: (lane: Int, wire: Int)] = [:]
    /// The lanes whose fetched items carry each key, ascending.
    var carriers: [String: [Int]] = [:]
    /// Where the undated phase is: lane and position.
    var undatedCursor = (lane: 0, index: 0)

    init(feeds: [Feed], engine: FeedEngine, prefetchDistance: Int, limit: Int?) {
        self.engine = engine
        self.prefetchDistance = prefetchDistance
        self.limit = limit
        lanes = feeds.map { feed in
            let ordered = feed.source.ordering == .newestFirst
            return Lane(feed: feed, ordered: ordered, pager: ordered ? FeedPager(feed: feed, engine: engine) : nil)
        }
    }

    deinit {
        for lane in lanes {
            lane.pageTask?.cancel()
            lane.fullTask?.cancel()
        }
    }

    // MARK: Iteration

    func next() async -> StreamEntry? {
        if closed { return nil }
        if let limit, yielded >= limit { return nil }
        start()
        while true {
            if closed { return nil }
            if Task.isCancelled {
                cancelInFlight()
                return nil
            }
            if let (laneIndex, candidate) = bestHead() {
                let blockers = blocking(candidate.date, from: laneIndex)
                if blockers.isEmpty { return yield(candidate, from: laneIndex) }
                for blocker in blockers { request(blocker) }
                await settle(blockers[0])
                continue
            }
            let unfinished = lanes.indices.filter { !lanes[$0].finished }
            if let first = unfinished.first {
                for index in unfinished { request(index) }
                await settle(first)
                continue
            }
            guard let entry = nextUndated() else { return nil }
            yielded += 1
            return entry
        }
    }

    /// Starts page 1 of every date-ordered feed and the full fetch of every other one, at once.
    private func start() {
        guard !started else { return }
        started = true
        var fullEngine = engine
        fullEngine.refresh = .full
        for index in lanes.indices {
            lanes[index].started = ContinuousClock.now
            if lanes[index].ordered {
                request(index)
            } else {
                let feed = lanes[index].feed
                let engine = fullEngine
                lanes[index].fullTask = Task.detached { await engine.pull(feed) }
            }
        }
    }

    /// Starts the next page of lane `index` unless one is in flight or the feed is finished.
    private func request(_ index: Int) {
        guard !closed, lanes[index].ordered, !lanes[index].finished, lanes[index].pageTask == nil,
            let pager = lanes[index].pager
        else { return }
        lanes[index].pager = nil
        lanes[index].pageTask = Task.detached {
            var pager = pager
            let items = await pager.nextPage()
            return (pager, items)
        }
    }

    /// Waits for lane `index`'s fetch in flight and takes its result; a cancelled consumer cancels the fetch.
    private func settle(_ index: Int) async {
        if let task = lanes[index].pageTask {
            let (pager, items) = await withTaskCancellationHandler {
                await task.value
            } onCancel: {
                task.cancel()
            }
            // `finish()` may have taken it meanwhile.
            guard lanes[index].pageTask == task else { return }
            take(pager, items, lane: index, cancelled: Task.isCancelled)
        } else if let task = lanes[index].fullTask {
            let result = await withTaskCancellationHandler {
                await task.value
            } onCancel: {
                task.cancel()
            }
            guard lanes[index].fullTask == task else { return }
            take(result, lane: index, cancelled: Task.isCancelled)
        }
    }

    // MARK: Taking pages

    private func take(_ pager: FeedPager, _ items: [FeedItem]?, lane index: Int, cancelled: Bool) {
        lanes[index].pageTask = nil
        lanes[index].pager = pager
        lanes[index].lastPage = ContinuousClock.now
        lanes[index].pages = pager.pages
        lanes[index].requests = pager.requests
        lanes[index].announcedPages = pager.announcedPages
        if let items {
            add(items, to: index, page: pager.pages)
        }
        if pager.isFinished {
            if cancelled && items == nil && pager.error != nil {
                // Our own cancellation, not the feed's failure: the feed simply stops here.
                lanes[index].cancelled = true
                lanes[index].notes.append("stopped: the page in flight was cancelled")
            } else {
                lanes[index].error = pager.error
            }
            lanes[index].notes = pager.notes + lanes[index].notes
            lanes[index].reachedEnd = pager.reachedEnd
            lanes[index].complete = pager.reachedEnd && pager.error == nil
            end(index)
        }
    }

    private func take(_ result: FeedResult, lane index: Int, cancelled: Bool) {
        lanes[index].fullTask = nil
        add(result.items, to: index, page: nil)
        lanes[index].pages = result.pages
        lanes[index].requests = result.requests
        lanes[index].notes = result.notes
        if cancelled && result.error != nil {
            lanes[index].cancelled = true
            lanes[index].notes.append("stopped: the pages in flight were cancelled")
        } else {
            lanes[index].error = result.error
        }
        lanes[index].complete = result.complete
        lanes[index].reachedEnd = result.complete
        lanes[index].reported = true  // the engine's pull reported it through `feedFinished`
        end(index)
    }

    private func end(_ index: Int) {
        lanes[index].finished = true
        lanes[index].ended = ContinuousClock.now
        if !lanes[index].reported {
            lanes[index].reported = true
            engine.events.feedFinished(report(index).result)
        }
    }

    /// Buffers a page's items and records where each key occurs.
    private func add(_ items: [FeedItem], to index: Int, page: Int?) {
        let source = lanes[index].feed.source.typeName
        let before = lanes[index].frontier
        var newest: Date?
        for item in items {
            let wire = lanes[index].wire
            lanes[index].wire += 1
            lanes[index].items.append(item)
            let key = UnifiedStream.dedupKey(item, source: source)
            if let first = firstOccurrence[key] {
                if (index, wire) < (first.lane, first.wire) { firstOccurrence[key] = (index, wire) }
            } else {
                firstOccurrence[key] = (index, wire)
            }
            var lanesCarrying = carriers[key, default: []]
            if !lanesCarrying.contains(index) {
                lanesCarrying.append(index)
                lanesCarrying.sort()
                carriers[key] = lanesCarrying
            }
            if let date = item.sortDate {
                lanes[index].pending.append(Pending(item: item, date: date, wire: wire, key: key))
                lanes[index].frontier = min(lanes[index].frontier ?? date, date)
                newest = max(newest ?? date, date)
            } else {
                lanes[index].undated.append(Undated(item: item, wire: wire, key: key))
            }
        }
        // Next in stream order last: newest, then lowest wire position.
        lanes[index].pending.sort { $0.date != $1.date ? $0.date < $1.date : $0.wire > $1.wire }
        if lanes[index].ordered, let before, let newest, newest > before, !lanes[index].orderWarned, let page {
            lanes[index].orderWarned = true
            lanes[index].notes.append(
                "not in date order: page \(page) holds an item dated \(ISO8601.string(from: newest)), newer than "
                    + "\(ISO8601.string(from: before)) on an earlier page; entries around it may be out of order")
        }
    }

    // MARK: Choosing the next entry

    /// The next dated entry in stream order among the buffered items, dropping copies that are not
    /// the first occurrence of their key or were yielded already.
    private func bestHead() -> (Int, Pending)? {
        var best: (Int, Pending)?
        for index in lanes.indices {
            while let top = lanes[index].pending.last {
                let first = firstOccurrence[top.key]
                if yieldedKeys.contains(top.key) || first.map({ $0.lane != index || $0.wire != top.wire }) == true {
                    lanes[index].pending.removeLast()
                    continue
                }
                break
            }
            guard let top = lanes[index].pending.last else { continue }
            if let current = best {
                let better =
                    top.date != current.1.date
                    ? top.date > current.1.date
                    : index != current.0 ? index < current.0 : top.wire < current.1.wire
                if better { best = (index, top) }
            } else {
                best = (index, top)
            }
        }
        return best
    }

    /// The feeds whose unfetched pages might still hold an entry at or before `date` in stream
    /// order (or a copy of it): every unfinished feed but the candidate's own whose oldest fetched
    /// date is not strictly older, and every unfinished feed that is not date-ordered.
    private func blocking(_ date: Date, from laneIndex: Int) -> [Int] {
        lanes.indices.filter { index in
            let lane = lanes[index]
            guard index != laneIndex, !lane.finished else { return false }
            guard lane.ordered, let frontier = lane.frontier else { return true }
            return frontier >= date
        }
    }

    private func yield(_ candidate: Pending, from index: Int) -> StreamEntry {
        lanes[index].pending.removeLast()
        yieldedKeys.insert(candidate.key)
        yielded += 1
        let lane = lanes[index]
        let entry = StreamEntry(
            item: candidate.item, feed: lane.feed.name,
            feeds: (carriers[candidate.key] ?? [index]).map { lanes[$0].feed.name },
            source: lane.feed.source.typeName)
        prefetch()
        return entry
    }

    /// Requests the next page of every date-ordered feed the consumer is within ``prefetchDistance``
    /// entries of (and, with a limit, whose page the entries left could need).
    private func prefetch() {
        let left = limit.map { $0 - yielded } ?? Int.max
        guard left > 0 else { return }
        for index in lanes.indices {
            let lane = lanes[index]
            guard lane.ordered, !lane.finished, lane.pageTask == nil else { continue }
            let distance = entriesBefore(needing: index)
            if distance <= prefetchDistance && distance < left { request(index) }
        }
    }

    /// How many buffered entries can be yielded before lane `index`'s next page is needed: its own
    /// buffered items and the other feeds' items newer than its oldest fetched date.
    private func entriesBefore(needing index: Int) -> Int {
        guard let frontier = lanes[index].frontier else { return 0 }
        var count = lanes[index].pending.count
        for other in lanes.indices where other != index {
            let pending = lanes[other].pending
            // `pending` is ascending by date: binary-search the first item newer than `frontier`.
            var low = 0
            var high = pending.count
            while low < high {
                let middle = (low + high) / 2
                if pending[middle].date > frontier { high = middle } else { low = middle + 1 }
            }
            count += pending.count - low
        }
        return count
    }

    /// The next undated entry, once every feed is fetched and every dated entry yielded.
    private func nextUndated() -> StreamEntry? {
        while undatedCursor.lane < lanes.count {
            let lane = lanes[undatedCursor.lane]
            guard undatedCursor.index < lane.undated.count else {
                undatedCursor = (undatedCursor.lane + 1, 0)
                continue
            }
            let candidate = lane.undated[undatedCursor.index]
            undatedCursor.index += 1
            let first = firstOccurrence[candidate.key]
            guard !yieldedKeys.contains(candidate.key), first?.lane == undatedCursor.lane, first?.wire == candidate.wire
            else { continue }
            yieldedKeys.insert(candidate.key)
            return StreamEntry(
                item: candidate.item, feed: lane.feed.name,
                feeds: (carriers[candidate.key] ?? [undatedCursor.lane]).map { lanes[$0].feed.name },
                source: lane.feed.source.typeName)
        }
        return nil
    }

    // MARK: Stopping

    private func cancelInFlight() {
        for lane in lanes {
            lane.pageTask?.cancel()
            lane.fullTask?.cancel()
        }
    }

    func finish() async -> [LazyUnifiedStream.FeedReport] {
        closed = true
        cancelInFlight()
        for index in lanes.indices {
            if let task = lanes[index].pageTask {
                let (pager, items) = await task.value
                guard lanes[index].pageTask == task else { continue }
                take(pager, items, lane: index, cancelled: true)
            } else if let task = lanes[index].fullTask {
                let result = await task.value
                guard lanes[index].fullTask == task else { continue }
                take(result, lane: index, cancelled: true)
            }
        }
        return lanes.indices.map { index in
            if !lanes[index].reported {
                lanes[index].reported = true
                lanes[index].ended = lanes[index].lastPage ?? ContinuousClock.now
                engine.events.feedFinished(report(index).result)
            }
            return report(index)
        }
    }

    private func report(_ index: Int) -> LazyUnifiedStream.FeedReport {
        let lane = lanes[index]
        var result = FeedResult(
            feed: lane.feed.name, source: lane.feed.source.typeName, items: lane.items, pages: lane.pages,
            requests: lane.requests, error: lane.error, notes: lane.notes,
            duration: lane.started.map { (lane.ended ?? ContinuousClock.now) - $0 } ?? .zero)
        result.complete = lane.complete
        return LazyUnifiedStream.FeedReport(
            result: result, dateOrdered: lane.ordered, announcedPages: lane.announcedPages,
            stoppedEarly: (!lane.finished || lane.cancelled) && lane.error == nil)
    }
}
