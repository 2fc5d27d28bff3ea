// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

public import FeedCore
public import FeedStorage
import Foundation
import PostgresNIO

/// Claims on PostgreSQL. A claim is a `pull_checkpoint` row holding the claiming process
/// (`owner`, `pid:start`), its machine (`owner_host`) and a `heartbeat` moved by every page written.
/// Another process's claim holds while that process runs — checked through `/proc` when it is on this
/// machine — or, for a process on another machine, while its heartbeat is younger than
/// ``PostgresFeedStore/claimTimeout``. Two processes claiming one feed at once take turns on the
/// feed row's lock (`SELECT … FOR UPDATE`), so exactly one gets the claim.
extension PostgresFeedStore {
    /// Claims `feed` for a pull written page by page; see ``StoreDriver``.
    public func beginPull(
        feed: String, source: String, fingerprint: String, restart: Bool, owner: PullOwner = .current,
        config: String? = nil
    ) throws -> PullStart {
        let now = self.now().timeIntervalSince1970
        let host = Self.hostName
        let timeout = claimTimeout
        // The usual case, a feed with no checkpoint, in one statement (one round trip instead of
        // seven), prepared (``FreshPullStatement``).
        let fresh: Int64? = try statement("begin the pull of feed '\(feed)'") { db in
            try await db.rows(
                of: FreshPullStatement(
                    feed: feed, source: source, config: config, owner: owner.description, host: host, now: now,
                    fingerprint: fingerprint)
            ).first
        }
        if let fresh {
            return .fresh(PullTicket(feed: feed, source: source, owner: owner, pull: fresh, startedPull: fresh))
        }
        // A checkpoint exists: resume it, wait for its live holder, or discard it.
        return try transaction("begin the pull of feed '\(feed)'") { db in
            try await Self.ensureFeed(feed, source: source, config: config, in: db)
            try await Self.lockFeed(feed, in: db)
            let number = try await Self.nextPullNumber(of: feed, in: db)
            if let row = try await db.row("SELECT * FROM pull_checkpoint WHERE feed = \(feed)") {
                if let text = try row.get("owner", String?.self), let holder = PullOwner(text), holder != owner,
                    Self.isLive(
                        holder, host: try row.get("owner_host", String?.self),
                        heartbeat: try row.get("heartbeat", Double?.self), thisHost: host, timeout: timeout, now: now)
                {
                    return .busy(holder)
                }
                let heartbeat = try row.get("heartbeat", Double?.self) ?? 0
                let resume = try Self.resumePoint(in: row)
                if !restart, let resume, try row.get("fingerprint", String.self) == fingerprint,
                    now - heartbeat < PullTicket.resumeWindow
                {
                    try await db.exec(
                        """
                        UPDATE pull_checkpoint SET owner = \(owner.description), owner_host = \(host), heartbeat = \(now)
                        WHERE feed = \(feed)
                        """)
                    let ticket = PullTicket(
                        feed: feed, source: source, owner: owner, pull: number,
                        startedPull: try row.get("started_pull", Int64.self))
                    return .resume(ticket, resume, storedPages: Int(try row.get("pages", Int64.self)))
                }
                try await Self.discardStaged(feed: feed, in: db)
            }
            try await db.exec(
                """
                INSERT INTO pull_checkpoint (feed, owner, owner_host, heartbeat, fingerprint, started_pull, resume, pages,
                    created_at)
                VALUES (\(feed), \(owner.description), \(host), \(now), \(fingerprint), \(number), NULL, 0, \(now))
                """)
            return .fresh(PullTicket(feed: feed, source: source, owner: owner, pull: number, startedPull: number))
        }
    }

    /// Writes one accepted page of the pull `ticket` holds, in one transaction.
    ///
    /// - Throws: ``StoreError`` with kind ``StoreError/Kind/claimLost`` when another process took the
    ///   feed over.
    @discardableResult
    public func stagePage(_ page: AcceptedPage, ticket: PullTicket) throws -> CommitSummary {
        let write = try pageWrite(page, ticket: ticket)
        return try transaction(write.operation, write.run)
    }

    /// ``stagePage(_:ticket:)`` from async code: the pull's page writer awaits PostgresNIO directly,
    /// with no thread blocked on the bridge.
    @discardableResult
    public func stage(_ page: AcceptedPage, ticket: PullTicket) async throws -> CommitSummary {
        try await preparePageWrite(page, ticket: ticket).run()
    }

    /// The page's items prepared (keys, hashes, on a first pull `tsvector` literals) and its
    /// bookkeeping encoded now; the write is the transaction alone.
    public func preparePageWrite(_ page: AcceptedPage, ticket: PullTicket) throws -> PreparedPageWrite {
        let write = try pageWrite(page, ticket: ticket)
        return PreparedPageWrite { try await self.asyncTransaction(write.operation, write.run) }
    }

    /// The transaction writing one staged page: the feed locked and the claim checked in one
    /// statement, then the items (``writeItems(_:feed:pull:now:staged:keepRaw:vectors:bookkeeping:in:)``)
    /// with the resume point and the page's validators (``PageBookkeeping``). Everything that needs
    /// no database is done before the transaction.
    private func pageWrite(_ page: AcceptedPage, ticket: PullTicket) throws -> (
        operation: String, run: @Sendable (PostgresConnection) async throws -> CommitSummary
    ) {
        let now = self.now().timeIntervalSince1970
        let prepared = PreparedItem.prepare(page.items, source: ticket.source, keepRaw: keepRaw)
        // A feed's first pull inserts nearly every item, so their `tsvector` literals are built
        // here; a later pull mostly sees items again unchanged, which need none, and builds the
        // few it writes in the transaction.
        let vectors = ticket.startedPull == 1 ? PostgresSearchVector.literals(of: prepared) : [:]
        var cache: HTTPCacheEntry?
        if let cached = page.cacheable {
            cache = HTTPCacheEntry(
                url: cached.key, status: 200, headers: cached.headers, body: Data(), etag: cached.etag,
                lastModified: cached.lastModified)
            cache?.page = StoredPageSummary(page)
        }
        let bookkeeping = try PageBookkeeping(feed: ticket.feed, now: now, resume: page.resume, cache: cache)
        let keepRaw = self.keepRaw
        let location = self.location
        let host = Self.hostName
        let operation = "save page \(page.number) of feed '\(ticket.feed)'"
        return (operation, { db in
            let held = try await Self.lockFeed(ticket.feed, in: db, heldBy: ticket.owner, host: host)
            guard held else {
                throw StoreError(
                    kind: .claimLost, path: location, operation: operation,
                    detail: "another feedagg process took over this feed's pull")
            }
            return try await Self.writeItems(
                prepared, feed: ticket.feed, pull: ticket.pull, now: now, staged: true, keepRaw: keepRaw,
                vectors: vectors, bookkeeping: bookkeeping, in: db)
        })
    }

    static func resumePoint(in row: PostgresRandomAccessRow) throws -> ResumePoint? {
        guard let text = try row.get("resume", String?.self) else { return nil }
        return try? JSONDecoder().decode(ResumePoint.self, from: Data(text.utf8))
    }

    /// Ends the pull `ticket` holds, in one transaction, revealing everything it staged.
    @discardableResult
    public func finishPull(_ pull: FeedPull, ticket: PullTicket, keepResume: Bool) throws -> CommitSummary {
        let now = self.now().timeIntervalSince1970
        if try finishUnstaged(pull, keepResume: keepResume, now: now) { return CommitSummary() }
        let (summary, revealed) = try transaction("commit feed '\(pull.feed)'") { db in
            try await Self.lockFeed(pull.feed, in: db)
            var summary = CommitSummary()
            let finished = try await Self.finish(
                pull, pull: ticket.pull, startedPull: ticket.startedPull, now: now, in: db)
            summary.missing = finished.missing
            for entry in pull.cacheEntries {
                try await Self.storeCacheEntry(entry, feed: pull.feed, now: now, staged: false, in: db)
            }
            if keepResume {
                try await db.exec(
                    """
                    UPDATE pull_checkpoint SET owner = NULL, owner_host = NULL, heartbeat = \(now)
                    WHERE feed = \(pull.feed) AND resume IS NOT NULL
                    """)
                try await db.exec("DELETE FROM pull_checkpoint WHERE feed = \(pull.feed) AND resume IS NULL")
            } else {
                try await db.exec("DELETE FROM pull_checkpoint WHERE feed = \(pull.feed)")
            }
            return (summary, finished.revealed)
        }
        refreshStatistics(afterRevealing: revealed)
        return summary
    }

    /// Ends a pull that staged nothing (page 1 answered `304`, or it failed before a page was
    /// saved) in one statement: the feed row's record and the checkpoint's removal, as
    /// ``finishPull(_:ticket:keepResume:)`` does, when nothing is staged for the feed; `false` (and
    /// nothing written) otherwise, or when the pull needs more (validators to store, a complete
    /// pull marking missing items, a checkpoint to keep), and the full transaction runs instead.
    /// An unchanged feed's pull was seven round trips here; most of a refresh cycle's store time.
    func finishUnstaged(_ pull: FeedPull, keepResume: Bool, now: Double) throws -> Bool {
        let settled = pull.error == nil && !pull.limited
        guard !keepResume, pull.cacheEntries.isEmpty, !(settled && pull.complete), pull.items.isEmpty else { return false }
        let pageCount = settled ? pull.pageCount.map(Int64.init) : nil
        let finish = UnstagedFinishStatement(
            feed: pull.feed, now: now, error: pull.error, pages: Int64(pull.stats.pages),
            requests: Int64(pull.stats.requests), items: Int64(pull.itemCount), settled: settled, pageCount: pageCount)
        return try statement("commit feed '\(pull.feed)'") { db in
            try await db.rows(of: finish).first == false
        }
    }

    /// Whether a claim by `holder` on `host` still holds (see the rules above).
    static func isLive(
        _ holder: PullOwner, host: String?, heartbeat: Double?, thisHost: String, timeout: TimeInterval, now: Double
    ) -> Bool {
        if host == nil || host == thisHost { return holder.isAlive }
        return now - (heartbeat ?? 0) < timeout
    }

    /// Whether another process that still runs holds the claim on `feed`.
    static func isClaimedByLiveProcess(
        _ feed: String, host thisHost: String, timeout: TimeInterval, now: Double, in db: PostgresConnection
    ) async throws -> Bool {
        guard let row = try await db.row("SELECT owner, owner_host, heartbeat FROM pull_checkpoint WHERE feed = \(feed)"),
            let text = try row.get("owner", String?.self), let holder = PullOwner(text)
        else { return false }
        let host = try row.get("owner_host", String?.self)
        if holder == .current && (host == nil || host == thisHost) { return false }
        return isLive(
            holder, host: host, heartbeat: try row.get("heartbeat", Double?.self), thisHost: thisHost, timeout: timeout,
            now: now)
    }

    /// Drops what an unfinished pull of `feed` staged, and its checkpoint.
    static func discardStaged(feed: String, in db: PostgresConnection) async throws {
        try await db.exec("DELETE FROM item WHERE feed = \(feed) AND staged")
        try await db.exec("DELETE FROM staged_update WHERE feed = \(feed)")
        try await db.exec("DELETE FROM staged_cache WHERE feed = \(feed)")
        try await db.exec("DELETE FROM pull_checkpoint WHERE feed = \(feed)")
    }

    /// The checkpoint of `feed`, if a pull of it is unfinished.
    public func checkpoint(feed: String) throws -> (resume: ResumePoint?, owner: PullOwner?, pages: Int)? {
        let row: CheckpointRow? = try read("read the checkpoint of feed '\(feed)'") { db in
            guard let row = try await db.row("SELECT * FROM pull_checkpoint WHERE feed = \(feed)") else { return nil }
            return CheckpointRow(
                resume: try Self.resumePoint(in: row), owner: try row.get("owner", String?.self).flatMap(PullOwner.init),
                pages: Int(try row.get("pages", Int64.self)))
        }
        return row.map { ($0.resume, $0.owner, $0.pages) }
    }

    private struct CheckpointRow: Sendable {
        var resume: ResumePoint?
        var owner: PullOwner?
        var pages: Int
    }
}

#endif
