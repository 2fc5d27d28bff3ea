import FeedCore
import FeedSearch
import FeedStore
import FeedStorage
import Foundation

// MARK: - Running the feeds of a pull, and its report

extension Aggregator {
    /// One feed's pull: its position in the pull, its result and what its commit did.
    typealias FeedOutcome = (index: Int, result: FeedResult, commit: Result<CommitSummary, StoreError>)

    /// Pulls `feeds` concurrently, each committed as soon as it finishes, while the progress line
    /// is drawn; the outcomes come back in the order of `feeds`.
    ///
    /// - Parameter restart: Start every feed from page 1 even where a stored pull was interrupted.
    func pullFeeds(
        _ feeds: [Feed], setup: PullSetup, store: any StoreDriver, settings: PullSettings, restart: Bool
    ) async -> [FeedOutcome] {
        let engine = setup.engine
        let progress = setup.progress
        let console = self.console
        let quiet = settings.quiet
        let retain = settings.retainItems
        let owner = FeedStore.canonicalConfigPath(settings.configPath)
        return await withTaskGroup(of: FeedOutcome?.self) { group in
            for (index, feed) in feeds.enumerated() {
                group.addTask {
                    var (result, commit) = await Self.pullAndCommit(
                        feed, engine: engine, store: store, restart: restart, retain: retain, quiet: quiet,
                        console: console, progress: progress, config: owner)
                    if !retain { result.items = [] }
                    return (index, result, commit)
                }
            }
            if feeds.isEmpty { progress.finish() }
            group.addTask {
                if !quiet { await progress.display(on: console) }
                return nil
            }
            var outcomes: [FeedOutcome] = []
            for await outcome in group {
                guard let outcome else { continue }
                outcomes.append(outcome)
                if outcomes.count == feeds.count {
                    progress.finish()
                    group.cancelAll()
                }
            }
            return outcomes.sorted { $0.index < $1.index }
        }
    }

    /// The pull's report: each feed's commit or store failure, and the requested page of the
    /// unified stream read back from the store (in the order the feeds are declared).
    ///
    /// - Parameter rules: the configuration's filter rules, applied to the page as to every read.
    func makeReport(
        _ outcomes: [FeedOutcome], declared: [String], rules: FilterRules, store: any StoreDriver, settings: PullSettings
    ) async throws -> PullReport {
        var commits: [String: CommitSummary] = [:]
        var failures: [String: StoreError] = [:]
        for outcome in outcomes {
            switch outcome.commit {
            case .success(let summary): commits[outcome.result.feed] = summary
            case .failure(let error): failures[outcome.result.feed] = error
            }
        }
        let page = try await Self.offPool {
            try store.placeUndatedItems(feedOrder: declared)
            guard settings.readsPage else {
                return StoredStreamPage(
                    entries: [], totalItems: 0, perPage: settings.perPage, totalPages: 0, page: settings.page, nextCursor: nil)
            }
            return try store.stream(
                feeds: declared, sources: nil, selection: StreamSelection(rules: rules), page: settings.page,
                perPage: settings.perPage)
        }
        var report = PullReport(
            results: outcomes.map(\.result), commits: commits, storeFailures: failures, page: page,
            storePath: store.location)
        report.streamFeeds = declared
        return report
    }
}
