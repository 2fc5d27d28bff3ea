import Synchronization

/// Counts feeds and pages done during a pull, for the progress line.
final class PullProgress: Sendable {
    private struct Counts {
        var feedsDone = 0
        var pages = 0
        var requests = 0
        var finished = false
        var savedPages = 0
        var savedItems = 0
        /// Per feed: the number of its latest accepted page, and its page count when known.
        var walks: [String: (page: Int, total: Int?)] = [:]
    }

    private let counts = Mutex(Counts())
    let totalFeeds: Int

    init(totalFeeds: Int) {
        self.totalFeeds = totalFeeds
    }

    func page() { counts.withLock { $0.pages += 1 } }
    func request() { counts.withLock { $0.requests += 1 } }
    /// `feed` ended: its page count is what it reached.
    func feedDone(_ feed: String) {
        counts.withLock { counts in
            counts.feedsDone += 1
            let reached = counts.walks[feed]?.page ?? 0
            counts.walks[feed] = (reached, reached)
        }
    }

    /// `feed` accepted page `page` of `total` pages (`nil`: not known yet).
    func accepted(feed: String, page: Int, of total: Int?) {
        counts.withLock { $0.walks[feed] = (page, total.map { max($0, page) }) }
    }
    /// A page of `items` items was written to the store.
    func saved(items: Int) {
        counts.withLock {
            $0.savedPages += 1
            $0.savedItems += items
        }
    }

    /// What a Ctrl-C leaves: `interrupted: 1/3 feeds done; 12 pages (240 items) saved: the next
    /// `feedagg pull` resumes where this one stopped`.
    var interruptionLine: String {
        counts.withLock { counts in
            let done = "\(counts.feedsDone)/\(totalFeeds) " + (totalFeeds == 1 ? "feed" : "feeds") + " done"
            guard counts.savedPages > 0 else { return "interrupted: \(done); no page was saved" }
            return "interrupted: \(done); \(Plural.of(counts.savedPages, "page")) "
                + "(\(Plural.of(counts.savedItems, "item"))) saved: the next `feedagg pull` resumes where this one stopped"
        }
    }
    func finish() { counts.withLock { $0.finished = true } }

    var line: String? {
        counts.withLock { counts in
            counts.finished
                ? nil
                : "pulling: \(counts.feedsDone)/\(totalFeeds) " + (totalFeeds == 1 ? "feed" : "feeds") + " done · "
                    + pages(counts) + " · \(Plural.of(counts.requests, "request"))"
        }
    }

    /// `page 54/300` when every feed's page count is known (pages reached over pages in all),
    /// else `54 pages` (pages decoded so far).
    private func pages(_ counts: Counts) -> String {
        let totals = counts.walks.values.compactMap(\.total)
        guard counts.walks.count == totalFeeds, totals.count == totalFeeds, totalFeeds > 0 else {
            return Plural.of(counts.pages, "page")
        }
        let reached = counts.walks.values.map(\.page).reduce(0, +)
        return "page \(reached)/\(totals.reduce(0, +))"
    }

    /// Shows the progress line once the pull has run longer than `grace`, refreshing it until
    /// the pull finishes. Runs as a child task of the pull, so it ends with it.
    func display(on console: Console, grace: Duration = .milliseconds(500), every: Duration = .milliseconds(100)) async {
        guard console.stderrIsTerminal else { return }
        do {
            try await Task.sleep(for: grace)
            while let line = self.line {
                console.progress(line)
                try await Task.sleep(for: every)
            }
        } catch {}
        console.clearProgress()
    }
}
