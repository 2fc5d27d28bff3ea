public import FeedCore
public import Foundation

/// The store the application talks to: every item ever pulled, each feed's pull state and claims, and
/// the HTTP cache. Two engines implement it with the same semantics: `FeedStore` (SQLite through GRDB,
/// the embedded default) and, per issue 13, a PostgreSQL engine.
///
/// What every engine guarantees:
/// - **Per-feed atomic commits.** ``commitPull(_:)`` and ``finishPull(_:ticket:keepResume:)`` write one
///   feed's pull in one transaction: a crash leaves the feed before or fully after it.
/// - **Page staging and resume.** ``beginPull(feed:source:fingerprint:restart:owner:config:)`` claims a
///   feed; ``stagePage(_:ticket:)`` writes a page invisibly with the point a later pull resumes from;
///   ``finishPull(_:ticket:keepResume:)`` reveals the whole pull at once.
/// - **Claims.** A feed claimed by another live process is ``PullStart/busy(_:)``; a claim whose
///   holder died is taken over, and the dead holder's next ``stagePage(_:ticket:)`` fails with
///   ``StoreError/Kind/claimLost``.
/// - **Provenance.** Items are keyed by (feed, id); an item several feeds carry (same dedup key) is
///   stored once per feed and shown once in the stream, listing every feed carrying it.
/// - **Write-time stream order** and the **stable cursor**: the order of ``StreamCursor`` (placed
///   first, sort key descending, feed rank, feed position, feed, id), with undated items placed by
///   ``UndatedPlacement``; a cursor token written by one engine reads the same on the other.
///
/// Methods are synchronous and may block on I/O; they are safe to call from any thread or task, but
/// callers on Swift's cooperative pool or an event loop should hop off it for long work.
public protocol StoreDriver: AnyObject, Sendable {
    /// Where the store is, for messages: the SQLite file's path, or the PostgreSQL URL with its password
    /// redacted. Never carries a secret.
    var location: String { get }
    /// Whether commits store each item's original JSON (``FeedItem/raw``).
    var keepRaw: Bool { get }

    /// Commits one feed's pull (every item in `pull`) in one transaction.
    @discardableResult
    func commitPull(_ pull: FeedPull) throws -> CommitSummary
    /// Gives every unplaced undated item of the feeds in `feedOrder` its fixed sort key
    /// (``UndatedPlacement``); returns how many were placed.
    @discardableResult
    func placeUndatedItems(feedOrder: [String]) throws -> Int

    /// Claims `feed` for a pull written page by page and says where it begins (fresh, resumed, or
    /// busy with another live process). A non-nil `config` is recorded as the feed's owner.
    func beginPull(
        feed: String, source: String, fingerprint: String, restart: Bool, owner: PullOwner, config: String?
    ) throws -> PullStart
    /// Writes one accepted page of the pull `ticket` holds, invisible until ``finishPull(_:ticket:keepResume:)``.
    @discardableResult
    func stagePage(_ page: AcceptedPage, ticket: PullTicket) throws -> CommitSummary
    /// ``stagePage(_:ticket:)`` for async callers (a pull's page writer). The default runs the
    /// synchronous write on a thread of its own; an engine with an async driver awaits it instead.
    @discardableResult
    func stage(_ page: AcceptedPage, ticket: PullTicket) async throws -> CommitSummary
    /// ``stage(_:ticket:)`` in two steps: the work that needs no database done now, the write when
    /// ``PreparedPageWrite/run`` is called. A pull's page writer prepares a page while the pages
    /// before it are still being written (they are written one at a time, in order), so the
    /// writes, which a pull waits for, do only database work. The default defers everything to
    /// the write.
    func preparePageWrite(_ page: AcceptedPage, ticket: PullTicket) throws -> PreparedPageWrite
    /// Ends the pull `ticket` holds, revealing everything it staged, in one transaction.
    @discardableResult
    func finishPull(_ pull: FeedPull, ticket: PullTicket, keepResume: Bool) throws -> CommitSummary
    /// The checkpoint of `feed`, if a pull of it is unfinished: where it resumes and who holds it.
    func checkpoint(feed: String) throws -> (resume: ResumePoint?, owner: PullOwner?, pages: Int)?

    /// The remembered response for `url` (redacted, as it was stored), or `nil`.
    func cachedResponse(for url: String) throws -> HTTPCacheEntry?
    /// The page `summary` describes, rebuilt from the stored items of `feed`; `nil` when one is gone.
    func rebuildPage(_ summary: StoredPageSummary, feed: String) throws -> DecodedPage?
    /// The incremental baseline of `feed`, or `nil` when its last pull failed, was limited, or was of
    /// another source type.
    func baseline(for feed: String, source: String) throws -> IncrementalBaseline?
    /// The content digest of every visible item of `feed`, by id.
    func storedDigests(for feed: String) throws -> StoredDigests
    /// The id of every item of `feed`, visible or staged by an unfinished pull.
    func heldItemIDs(for feed: String) throws -> Set<String>
    /// The newest `updated` date among the visible items of `feed`.
    func newestUpdate(for feed: String) throws -> Date?
    /// Pages the feed's last successful pull read; `nil` when it never succeeded.
    func previousPageCount(feed: String) throws -> Int?
    /// The stored states and HTTP cache entries of `feeds`, read at once for a pull of them
    /// (``PullMemorySnapshot``); `nil` (the default) when the engine answers each read cheaply on
    /// its own (SQLite, in process).
    func pullMemorySnapshot(feeds: [String]) throws -> PullMemorySnapshot?

    /// Every stored feed with its item count and last pull, by name.
    func feedSummaries() throws -> [FeedSummary]
    /// Every stored feed's name, sorted.
    func feedNames() throws -> [String]
    /// Records `config` as the owner of the stored feeds among `feeds`.
    func assignOwner(_ config: String, feeds: [String]) throws
    /// Deletes exactly the feeds named (those stored) with their items and cache, in one transaction.
    @discardableResult
    func delete(feeds: [String]) throws -> (feeds: Int, items: Int)
    /// Deletes every feed not in `feeds`, in one transaction.
    @discardableResult
    func prune(keeping feeds: [String]) throws -> (feeds: Int, items: Int)

    /// The entries `selection` selects after `cursor` (from the top when `nil`), at most `limit`;
    /// tag rules label them (``StreamEntry/tags``).
    func stream(
        feeds: [String], sources: [String]?, selection: StreamSelection, after cursor: StreamCursor?, limit: Int
    ) throws -> StoredStreamPage
    /// Page `page` (1-based) of the entries `selection` selects, `perPage` entries per page.
    func stream(
        feeds: [String], sources: [String]?, selection: StreamSelection, page: Int, perPage: Int
    ) throws -> StoredStreamPage
    /// A page for an async caller, read without blocking a thread, when the engine can: what
    /// ``stream(feeds:sources:selection:after:limit:)`` returns after `cursor`, or, with no cursor,
    /// page 1 of ``stream(feeds:sources:selection:page:perPage:)`` (numbered). `nil` when it cannot
    /// (SQLite, whose reads block; a PostgreSQL read that needs a transaction): the caller then
    /// reads the page the synchronous way, on a thread of its own. `feedagg serve` asks it first:
    /// on PostgreSQL each trip to a store thread and back was about a fifth of a served page's CPU.
    ///
    /// With `onCallersPool`, the read may run on Swift's cooperative pool, where the caller runs:
    /// for a caller whose process holds that pool's threads only briefly (`feedagg serve`: its
    /// pulls' synchronous store calls wait on the store's own executor, which never needs the
    /// pool). Otherwise it runs on the store's own executor: a process whose pool threads may all
    /// be held for long (a test run's synchronous calls) would leave the read waiting for one past
    /// its timeout.
    func awaitStreamPage(
        feeds: [String], sources: [String]?, selection: StreamSelection, after cursor: StreamCursor?, limit: Int,
        onCallersPool: Bool
    ) async throws -> StoredStreamPage?
    /// Whether ``awaitStreamPage(feeds:sources:selection:after:limit:onCallersPool:)`` ever reads a
    /// page (`false`: it always returns `nil`, and a caller goes straight to the synchronous read).
    var awaitsStreamPages: Bool { get }
    /// When the store first saw each of `items`; items not stored (or staged) are absent.
    func firstSeen(_ items: [(feed: String, id: String)]) throws -> [String: [String: Date]]

    /// A number that moves with every change a stream read can see — a feed's commit, undated items
    /// placed, feeds deleted or pruned — made by any process writing the store; equal numbers mean
    /// equal reads. (`feedagg serve` keeps its most-polled pages rendered while it holds.)
    func changeVersion() throws -> Int64
    /// ``changeVersion()`` for an async caller, without a thread or a queue of its own: SQLite
    /// reads it on a connection kept for it (a local file, microseconds; never queued behind longer
    /// reads), PostgreSQL awaits its driver. `feedagg serve` asks it before every first page it
    /// keeps rendered, and each trip to a store thread cost such a request (mostly a `304`) a
    /// quarter of its time.
    func awaitChangeVersion() async throws -> Int64
    /// Follows the change number without reading it: calls `changed` with the number once the
    /// store is announcing its changes to this process, then with each number a commit by any
    /// process moves it to (in commit order, a moment after the commit; `announced` true), and
    /// with the number as the store checks its link now and then, until the calling task is
    /// cancelled or the link breaks (it then throws). Returns `false` at once, calling nothing,
    /// when the store cannot announce its changes (SQLite: a read of the number costs
    /// microseconds). `feedagg serve` answers revalidations and kept first pages from it on
    /// PostgreSQL (``awaitChangeVersion()`` is a round trip there).
    func watchChangeNumber(_ changed: @escaping @Sendable (_ number: Int64, _ announced: Bool) -> Void) async throws -> Bool

    /// The names of the applied schema migrations, oldest first.
    func schemaVersions() throws -> [String]
    /// Closes the store's connections; any later call fails.
    func close() throws
}

extension StoreDriver {
    /// A store whose reads block: none is awaited.
    public var awaitsStreamPages: Bool { false }

    /// A store whose reads block: `nil`, always (the caller reads on a thread of its own).
    public func awaitStreamPage(
        feeds: [String], sources: [String]?, selection: StreamSelection, after cursor: StreamCursor?, limit: Int,
        onCallersPool: Bool
    ) async throws -> StoredStreamPage? { nil }
}

extension StoreDriver {
    /// A store that cannot announce its changes: returns `false` at once.
    public func watchChangeNumber(
        _ changed: @escaping @Sendable (_ number: Int64, _ announced: Bool) -> Void
    ) async throws -> Bool { false }

    /// Runs ``stagePage(_:ticket:)`` on a dispatch queue of its own, never blocking a thread of
    /// Swift's cooperative pool on the store.
    @discardableResult
    public func stage(_ page: AcceptedPage, ticket: PullTicket) async throws -> CommitSummary {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "feedagg.store-call").async {
                continuation.resume(with: Result { try self.stagePage(page, ticket: ticket) })
            }
        }
    }

    /// Nothing prepared ahead: the write is ``stage(_:ticket:)``.
    public func preparePageWrite(_ page: AcceptedPage, ticket: PullTicket) throws -> PreparedPageWrite {
        PreparedPageWrite { try await self.stage(page, ticket: ticket) }
    }

    /// No snapshot: every read goes to the store (see the requirement).
    public func pullMemorySnapshot(feeds: [String]) throws -> PullMemorySnapshot? { nil }

    /// Commits a one-shot pull; see ``commitPull(_:)``.
    @discardableResult
    public func commitPull(
        feed: String, source: String, items: [FeedItem], complete: Bool, stats: PullStats, error: String?,
        cacheEntries: [HTTPCacheEntry]
    ) throws -> CommitSummary {
        try commitPull(
            FeedPull(
                feed: feed, source: source, items: items, complete: complete, stats: stats, error: error,
                cacheEntries: cacheEntries))
    }

    /// Records a pull that fetched nothing: the attempt, its error and counters; items stay as they are.
    public func recordFailure(feed: String, source: String, error: String, stats: PullStats) throws {
        try commitPull(FeedPull(feed: feed, source: source, items: [], complete: false, stats: stats, error: error))
    }

    /// Commits every pull (one transaction each, in order), then places new undated items relative to
    /// the whole stream of `feedOrder`.
    @discardableResult
    public func commit(_ pulls: [FeedPull], feedOrder: [String]) throws -> [CommitSummary] {
        var summaries: [CommitSummary] = []
        for pull in pulls { summaries.append(try commitPull(pull)) }
        try placeUndatedItems(feedOrder: feedOrder)
        return summaries
    }

    /// ``beginPull(feed:source:fingerprint:restart:owner:config:)`` for this process, without an owner.
    public func beginPull(
        feed: String, source: String, fingerprint: String, restart: Bool, owner: PullOwner = .current
    ) throws -> PullStart {
        try beginPull(feed: feed, source: source, fingerprint: fingerprint, restart: restart, owner: owner, config: nil)
    }

    /// ``beginPull(feed:source:fingerprint:restart:owner:config:)`` for this process.
    public func beginPull(
        feed: String, source: String, fingerprint: String, restart: Bool, config: String?
    ) throws -> PullStart {
        try beginPull(feed: feed, source: source, fingerprint: fingerprint, restart: restart, owner: .current, config: config)
    }

    /// Entries after `cursor` (from the top when `nil`), at most `limit`, with no query or rules.
    public func stream(feeds: [String], sources: [String]?, after cursor: StreamCursor? = nil, limit: Int) throws
        -> StoredStreamPage
    {
        try stream(feeds: feeds, sources: sources, selection: .everything, after: cursor, limit: limit)
    }

    /// Page `page` (1-based) of the stream, `perPage` entries per page, with no query or rules.
    public func stream(feeds: [String], sources: [String]?, page: Int, perPage: Int) throws -> StoredStreamPage {
        try stream(feeds: feeds, sources: sources, selection: .everything, page: page, perPage: perPage)
    }

    /// ``stream(feeds:sources:after:limit:)`` of every source type.
    public func stream(feeds: [String], after cursor: StreamCursor? = nil, limit: Int) throws -> StoredStreamPage {
        try stream(feeds: feeds, sources: nil, after: cursor, limit: limit)
    }

    /// ``stream(feeds:sources:page:perPage:)`` of every source type.
    public func stream(feeds: [String], page: Int, perPage: Int) throws -> StoredStreamPage {
        try stream(feeds: feeds, sources: nil, page: page, perPage: perPage)
    }
}

/// A staged page's write with its preparation done (``StoreDriver/preparePageWrite(_:ticket:)``).
public struct PreparedPageWrite: Sendable {
    /// Writes the page.
    public let run: @Sendable () async throws -> CommitSummary

    /// A write that runs `run`.
    public init(_ run: @escaping @Sendable () async throws -> CommitSummary) {
        self.run = run
    }
}
