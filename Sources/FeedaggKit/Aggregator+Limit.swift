public import FeedCore
public import FeedStore
import Foundation

/// What `pull --limit N` found: the newest entries of the stream and how each feed was walked.
public struct NewestItems: Sendable {
    /// The `N` asked for.
    public var limit: Int
    /// The newest entries, in stream order (at most ``limit``).
    public var entries: [StreamEntry]
    /// Per feed, in the pull's order: pages, requests, whether it was walked lazily, whether it stopped early.
    /// Their ``FeedResult/items`` are empty unless ``PullSettings/retainItems`` is set.
    public var feeds: [LazyUnifiedStream.FeedReport]

    /// The entries in `format`: JSON carries `limit` and a `null` `next_cursor` (the entries come
    /// from the network, not from a position in the store; `feedagg show` pages the store).
    public func rendered(_ format: OutputFormat, width: Int = 120) -> String {
        let page = StreamPage(page: 1, perPage: limit, totalItems: entries.count, totalPages: 1, entries: entries)
        var text = StreamRenderer.render(
            page, format: format, width: width, extra: [("limit", .int(limit)), ("next_cursor", .null)])
        if format == .table, !entries.isEmpty {
            // The page footer says nothing true about a limited pull: replace it.
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(2).map(String.init)
            lines.append("the \(entries.count) newest items (pull --limit \(limit))")
            text = lines.joined(separator: "\n") + "\n"
        }
        return text
    }
}

extension PullReport {
    /// What `pull` prints on standard output: the `--limit` items, else the requested page of the stored stream.
    public func rendered(_ format: OutputFormat, width: Int = 120) -> String {
        newest?.rendered(format, width: width) ?? page.rendered(format, width: width)
    }
}

extension Aggregator {
    /// `pull --limit N`: reads the first `limit` entries of a ``LazyUnifiedStream`` over `feeds`, so
    /// only the pages needed to be sure of them are fetched, then commits what each feed fetched as
    /// a limited pull (``FeedPull/limited``: no cache entries, not complete, no baseline for the next
    /// pull) and prints one line per feed.
    func pullNewest(
        _ limit: Int, feeds: [Feed], declared: [String], engine: FeedEngine, store: FeedStore,
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
                        ?? StoreError(kind: .database, path: store.path, operation: "commit", detail: "\(error)"))
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
        let page = try await Self.offPool {
            try store.placeUndatedItems(feedOrder: declared)
            return try store.stream(feeds: declared, page: 1, perPage: max(1, limit))
        }
        return PullReport(
            results: kept.map(\.result), commits: commits, storeFailures: failures, page: page, storePath: store.path,
            newest: NewestItems(limit: limit, entries: entries, feeds: kept))
    }

    /// `✓ org1-repos (github.repos): 1 page of 10, 1 request, 100 items (100 new, 0 updated), 0.06 s; stopped: the newest 20 are known`.
    public static func newestSummary(
        _ report: LazyUnifiedStream.FeedReport, limit: Int, commit: CommitSummary? = nil
    ) -> String {
        let result = report.result
        let seconds = Double(result.duration.components.seconds) + Double(result.duration.components.attoseconds) / 1e18
        var pages = "\(result.pages) page" + (result.pages == 1 ? "" : "s")
        if let announced = report.announcedPages, report.dateOrdered { pages += " of \(announced)" }
        var line = "✓ \(result.feed) (\(result.source)): \(pages), \(result.requests) request"
            + (result.requests == 1 ? "" : "s") + ", \(result.items.count) items"
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
