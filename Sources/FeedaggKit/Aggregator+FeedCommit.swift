import FeedCore
import FeedStore
import Foundation

// MARK: - One feed's pull into the store

extension Aggregator {
    /// Pulls one feed into the store page by page: claims it (or continues an interrupted pull of
    /// it), stages every page as the engine accepts it, then commits the feed in one transaction.
    static func pullAndCommit(
        _ feed: Feed, engine: FeedEngine, store: any StoreDriver, restart: Bool, retain: Bool, quiet: Bool,
        console: Console, progress: PullProgress? = nil, config: String? = nil
    ) async -> (FeedResult, Result<CommitSummary, StoreError>) {
        let fingerprint = [
            feed.source.typeName, Redaction.redact(feed.source.firstPageURL), String(feed.context.pageSize),
        ].joined(separator: " ")
        let start: PullStart
        do {
            start = try await offPool {
                try store.beginPull(
                    feed: feed.name, source: feed.source.typeName, fingerprint: fingerprint, restart: restart,
                    config: config)
            }
        } catch {
            let failure = error as? StoreError
                ?? StoreError(kind: .database, path: store.location, operation: "begin", detail: "\(error)")
            let result = FeedResult(
                feed: feed.name, source: feed.source.typeName, items: [], pages: 0, requests: 0,
                error: FeedError(feed: feed.name, url: nil, page: nil, reason: .notSaved(failure.description)),
                notes: [], duration: .zero)
            report(result, commit: .failure(failure), saveTime: .zero, quiet: quiet, on: console)
            return (result, .failure(failure))
        }
        var ticket: PullTicket
        var resume: ResumePoint?
        switch start {
        case .busy(let owner):
            var result = FeedResult(
                feed: feed.name, source: feed.source.typeName, items: [], pages: 0, requests: 0, error: nil,
                notes: [], duration: .zero)
            result.unchanged = true
            if !quiet {
                console.error(
                    "↷ \(feed.name) (\(feed.source.typeName)): skipped, another feedagg process (pid \(owner.pid)) "
                        + "is pulling this feed right now; its items are saved when it finishes")
            }
            return (result, .success(CommitSummary()))
        case .fresh(let claimed):
            ticket = claimed
        case .resume(let claimed, let point, _):
            ticket = claimed
            resume = restoringSecrets(point, from: feed.source.firstPageURL)
            if resume == nil {
                // A secret the stored URLs need is gone from the configuration: start over.
                if case .fresh(let restarted)? = try? await offPool({
                    try store.beginPull(
                        feed: feed.name, source: feed.source.typeName, fingerprint: fingerprint, restart: true,
                        config: config)
                }) {
                    ticket = restarted
                }
            }
        }
        let claim = ticket
        let sink = StorePageSink(store: store, ticket: claim, retain: retain, progress: progress)
        var result = await engine.pull(feed, resumingAt: resume, sink: sink)
        if let failure = await sink.drain(), result.error == nil || !(result.error?.reason.isNotSaved ?? false) {
            // A page that could not be written ends the feed's pull there, like any failure.
            result.error = FeedError(feed: feed.name, url: nil, page: nil, reason: .notSaved(failure.description))
        }
        let tally = sink.tally.withLock { $0 }
        if retain { result.items = tally.items }
        let saving = ContinuousClock.now
        let keepResume = result.error.map(\.reason.isResumable) ?? false
        let commit: Result<CommitSummary, StoreError>
        do {
            let record = FeedPull(result)
            var summary = try await offPool {
                try store.finishPull(record, ticket: claim, keepResume: keepResume)
            }
            summary.inserted = tally.summary.inserted
            summary.updated = tally.summary.updated
            summary.unchanged = tally.summary.unchanged
            commit = .success(summary)
        } catch {
            commit = .failure(
                error as? StoreError
                    ?? StoreError(kind: .database, path: store.location, operation: "commit", detail: "\(error)"))
        }
        report(result, commit: commit, saveTime: ContinuousClock.now - saving, quiet: quiet, on: console)
        return (result, commit)
    }

    /// `point` with the secret query values of its URLs put back from the feed's first page URL
    /// (the store keeps them redacted); `nil` when one cannot be restored.
    static func restoringSecrets(_ point: ResumePoint, from original: URL) -> ResumePoint? {
        var restored = point
        var urls: [URL] = []
        for url in point.urls {
            guard let url = Redaction.restore(url.absoluteString, secretsFrom: original) else { return nil }
            urls.append(url)
        }
        restored.urls = urls
        restored.visited = point.visited.map {
            Redaction.restore($0, secretsFrom: original)?.absoluteString ?? $0
        }
        return restored
    }

    /// Runs blocking work (a store call) on a thread that is not Swift's cooperative pool, and
    /// returns its result.
    ///
    /// The thread is a serial dispatch queue's, made for the call. Not `DispatchQueue.global()`:
    /// on Linux that is the cooperative pool's own thread pool (libdispatch's default-QoS root
    /// queue), which grows by about a thread a second when its threads block. A PostgreSQL store
    /// call blocks its thread on work that itself needs the pool, so a few of them at once stalled
    /// every task of the process (`feedagg serve` workers stopped beating and lost their leases). A
    /// serial queue is "overcommit": libdispatch gives it a thread whenever it has work.
    public static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "feedagg.store-call").async { continuation.resume(with: Result { try body() }) }
        }
    }
}
