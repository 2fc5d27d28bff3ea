import FeedCore
import FeedStore
import Synchronization

/// Writes each page of one feed into the store as the engine accepts it (see
/// ``FeedStore/stagePage(_:ticket:)``), off the cooperative pool, and tallies what it did.
///
/// Writes are pipelined: `accept` prepares the page's write (``StoreDriver/preparePageWrite(_:ticket:)``)
/// and queues it behind the previous one (so pages land in page order) and returns at once, letting
/// the walk fetch on while the store writes; it waits only
/// when ``maxPending`` writes are queued, which bounds the pages held in memory. A failed write
/// fails every later `accept`, and ``drain()`` reports it once the walk is over.
final class StorePageSink: PageSink, Sendable {
    struct Tally: Sendable {
        var summary = CommitSummary()
        var items: [FeedItem] = []
    }

    struct Pipeline: Sendable {
        var writes: [Task<Void, Never>] = []
        var failure: StoreError?
    }

    let store: any StoreDriver
    let ticket: PullTicket
    /// Keep the items too (``PullSettings/retainItems``).
    let retain: Bool
    /// Page writes queued at most before `accept` waits.
    let maxPending: Int
    let tally = Mutex(Tally())
    let pipeline = Mutex(Pipeline())
    /// Told of every page written (for the line a Ctrl-C prints).
    let progress: PullProgress?

    /// The engine may drop the items' raw JSON at decode when neither the store nor the report keeps it.
    var keepsRawJSON: Bool { store.keepRaw || retain }

    init(store: any StoreDriver, ticket: PullTicket, retain: Bool, maxPending: Int = 4, progress: PullProgress? = nil) {
        self.store = store
        self.ticket = ticket
        self.retain = retain
        self.maxPending = max(1, maxPending)
        self.progress = progress
    }

    func accept(_ page: AcceptedPage, of feed: Feed) async throws {
        // Back-pressure: wait for the oldest queued write while too many are queued.
        while let oldest = pipeline.withLock({ $0.writes.count >= maxPending ? $0.writes.removeFirst() : nil }) {
            await oldest.value
        }
        if let failure = pipeline.withLock({ $0.failure }) { throw failure }
        progress?.accepted(feed: feed.name, page: page.number, of: Self.announcedPages(page, maxPages: feed.context.maxPages))
        // Prepared here, while the writes before it run: the write chain does database work only.
        // A page that cannot be prepared ends the walk; the pages queued before it are still written.
        let prepared: PreparedPageWrite
        do {
            prepared = try store.preparePageWrite(page, ticket: ticket)
        } catch {
            throw Self.storeError(error, store: store)
        }
        pipeline.withLock { state in
            let previous = state.writes.last
            state.writes.append(Task { await self.write(page, prepared, after: previous) })
        }
    }

    /// `error` as the store error a failed page write reports.
    private static func storeError(_ error: any Error, store: any StoreDriver) -> StoreError {
        error as? StoreError
            ?? StoreError(kind: .database, path: store.location, operation: "save a page", detail: "\(error)")
    }

    /// The feed's page count as far as `page` tells: its own number after the last page, the
    /// remaining pages when the walk knows them, else what page 1 announced; at most `maxPages`.
    static func announcedPages(_ page: AcceptedPage, maxPages: Int?) -> Int? {
        var total: Int?
        if let resume = page.resume {
            total = resume.knownCount ? page.number + resume.urls.count : resume.expectedPages ?? page.totals?.totalPages
        } else {
            total = page.number
        }
        if let announced = total, let maxPages { total = min(announced, max(maxPages, page.number)) }
        return total
    }

    /// Writes `page` (`prepared`) once the write before it is done, unless a write already failed.
    private func write(_ page: AcceptedPage, _ prepared: PreparedPageWrite, after previous: Task<Void, Never>?) async {
        await previous?.value
        guard pipeline.withLock({ $0.failure }) == nil else { return }
        let store = self.store
        do {
            let summary = try await prepared.run()
            let retain = self.retain
            tally.withLock { tally in
                tally.summary.inserted += summary.inserted
                tally.summary.updated += summary.updated
                tally.summary.unchanged += summary.unchanged
                if retain { tally.items += page.items }
            }
            progress?.saved(items: page.items.count)
        } catch {
            let failure = Self.storeError(error, store: store)
            pipeline.withLock { $0.failure = $0.failure ?? failure }
        }
    }

    /// Waits for every queued write; the first write failure, if any.
    func drain() async -> StoreError? {
        while let next = pipeline.withLock({ $0.writes.isEmpty ? nil : $0.writes.removeFirst() }) {
            await next.value
        }
        return pipeline.withLock { $0.failure }
    }
}
