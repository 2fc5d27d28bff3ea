public import FeedCore
public import FeedStore
import FeedSearch
import FeedStorage
import Foundation

extension Aggregator {
    /// `pull --limit N`: reads the first `limit` entries of a ``LazyUnifiedStream`` over `feeds`, so
    /// only the pages needed to be sure of them are fetched, then commits what each feed fetched as
    /// a limited pull (``FeedPull/limited``: no cache entries, not complete, no baseline for the next
    /// pull) and prints one line per feed.
    ///
    /// The configuration's filter `rules` apply to what it prints, as to every read: to the page
    /// read back from the store, and to the newest entries fetched (``FilterRules/applied(to:now:)``).
    func pullNewest(
        _ limit: Int, feeds: [Feed], declared: [String], rules: FilterRules, engine: FeedEngine, store: any StoreDriver,
        settings: PullSettings, progress: PullProgress
    ) async throws -> PullReport {
        let console = self.console
        let quiet = settings.quiet
        let stream = LazyUnifiedStream(feeds: feeds, engine: engine, limit: limit)
        let (entries, reports) = await withTaskGroup(of: ([StreamEntry], [LazyUnifiedStream.FeedReport])?.self) {
            group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                var entries: [StreamEntry] = []
                while let entry = await iterator.next() { entries.append(entry) }
                let reports = await iterator.finish()
                progress.finish()
                return (entries, reports)
            }
            group.addTask {
                if !quiet { await progress.display(on: console) }
                return nil
            }
            var outcome: ([StreamEntry], [LazyUnifiedStream.FeedReport]) = ([], [])
            for await value in group {
                if let value {
                    outcome = value
                    group.cancelAll()
                }
            }
            return outcome
        }

        var commits: [String: CommitSummary] = [:]
        var failures: [String: StoreError] = [:]
        var kept: [LazyUnifiedStream.FeedReport] = []
        for var report in reports {
            let result = report.result
            let saving = ContinuousClock.now
            var limited = FeedPull(
                feed: result.feed, source: result.source, items: result.items, complete: false,
                stats: PullStats(result), error: result.error?.description)
            limited.limited = true
            let pull = limited
            let commit: Result<CommitSummary, StoreError>
            do {
                commit = .success(try await Self.offPool { try store.commitPull(pull) })
            } catch {
                commit = .failure(
                    error as? StoreError
                        ?? StoreError(kind: .database, path: store.location, operation: "commit", detail: "\(error)"))
            }
            switch commit {
            case .success(let summary): commits[result.feed] = summary
            case .failure(let error): failures[result.feed] = error
            }
            if result.error != nil || failures[result.feed] != nil {
                Self.report(result, commit: commit, saveTime: ContinuousClock.now - saving, quiet: quiet, on: console)
            } else if !quiet {
                console.error(Self.newestSummary(report, limit: limit, commit: try? commit.get()))
                for note in result.notes { console.error("  note: feed '\(result.feed)': \(note)") }
            }
            if !settings.retainItems { report.result.items = [] }
            kept.append(report)
        }
        let owner = FeedStore.canonicalConfigPath(settings.configPath)
        let committed = Array(commits.keys)
        let page = try await Self.offPool {
            try store.assignOwner(owner, feeds: committed)
            try store.placeUndatedItems(feedOrder: declared)
            return try store.stream(
                feeds: declared, sources: nil, selection: StreamSelection(rules: rules), page: 1, perPage: max(1, limit))
        }
        // Undated entries are dated by when the store first saw them (Atom and JSON Feed `updated`).
        var dated = rules.applied(to: entries, now: Date())
        let undated = dated.filter { $0.item.sortDate == nil }.map { (feed: $0.feed, id: $0.item.id) }
        if !undated.isEmpty, let seen = try? await Self.offPool({ try store.firstSeen(undated) }) {
            for index in dated.indices where dated[index].item.sortDate == nil {
                dated[index].firstSeen = seen[dated[index].feed]?[dated[index].item.id]
            }
        }
        var report = PullReport(
            results: kept.map(\.result), commits: commits, storeFailures: failures, page: page, storePath: store.location,
            newest: NewestItems(limit: limit, entries: dated, feeds: kept))
        report.streamFeeds = declared
        return report
    }

    /// `✓ org1-repos (github.repos): 1 page of 10, 1 request, 100 items (100 new, 0 updated), 0.06 s; stopped: the newest 20 are known`.
    public static func newestSummary(
        _ report: LazyUnifiedStream.FeedReport, limit: Int, commit: CommitSummary? = nil
    ) -> String {
        let result = report.result
        let seconds = result.duration.seconds
        var pages = Plural.of(result.pages, "page")
        if let announced = report.announcedPages, report.dateOrdered { pages += " of \(announced)" }
        var line = "✓ \(result.feed) (\(result.source)): \(pages), \(Plural.of(result.requests, "request")), "
            + Plural.of(result.items.count, "item")
        if let commit { line += " (\(commit.inserted) new, \(commit.updated) updated)" }
        line += ", " + String(format: "%.2f", seconds) + " s"
        if !report.dateOrdered {
            line += "; fetched in full: not date-ordered, so its newest items are known only after its last page"
        } else if report.stoppedEarly {
            line += "; stopped: the newest \(limit) are known"
        } else if result.complete {
            line += "; every page read"
        }
        return line
    }
}
