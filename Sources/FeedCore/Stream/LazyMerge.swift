import Foundation

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
