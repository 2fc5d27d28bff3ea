public import FeedCore
public import Foundation
import GRDB

extension FeedStore {
    /// A checkpoint untouched for this long is not resumed: the listing has moved on.
    public static let resumeWindow: TimeInterval = PullTicket.resumeWindow

    /// Claims `feed` for a pull written page by page, and says where it begins.
    ///
    /// An interrupted pull of the same feed (its process crashed, or it stopped on a failure
    /// worth resuming) is continued when its `fingerprint` (source type, first URL, page size) is the
    /// same, it is younger than ``resumeWindow`` and `restart` is false; otherwise what it staged is
    /// discarded and the pull begins at page 1. A feed claimed by another live process is `busy`.
    /// A non-nil `config` (the absolute path of the feeds.yaml declaring the feed) is recorded as
    /// the feed's owner, which ``FeedSummary/config`` reports and `prune` respects.
    public func beginPull(
        feed: String, source: String, fingerprint: String, restart: Bool, owner: PullOwner = .current,
        config: String? = nil
    ) throws -> PullStart {
        let now = self.now().timeIntervalSince1970
        return try writing("begin the pull of feed '\(feed)'") { db in
            try Self.ensureFeed(feed, source: source, config: config, in: db)
            let number = try Self.nextPullNumber(of: feed, in: db)
            if let row = try Row.fetchOne(db, sql: "SELECT * FROM pull_checkpoint WHERE feed = ?", arguments: [feed]) {
                if let text = try row.decode(String?.self, forColumn: "owner"), let holder = PullOwner(text),
                    holder != owner, holder.isAlive
                {
                    return .busy(holder)
                }
                let heartbeat = try row.decode(Double?.self, forColumn: "heartbeat") ?? 0
                let resume = try Self.resumePoint(in: row)
                if !restart, let resume, try row.decode(String.self, forColumn: "fingerprint") == fingerprint,
                    now - heartbeat < Self.resumeWindow
                {
                    try db.execute(
                        sql: "UPDATE pull_checkpoint SET owner = ?, heartbeat = ? WHERE feed = ?",
                        arguments: [owner.description, now, feed])
                    let ticket = PullTicket(
                        feed: feed, source: source, owner: owner, pull: number,
                        startedPull: try row.decode(Int64.self, forColumn: "started_pull"))
                    return .resume(ticket, resume, storedPages: try row.decode(Int.self, forColumn: "pages"))
                }
                try Self.discardStaged(feed: feed, in: db)
            }
            try db.execute(
                sql: """
                    INSERT INTO pull_checkpoint (feed, owner, heartbeat, fingerprint, started_pull, resume, pages, created_at)
                    VALUES (?, ?, ?, ?, ?, NULL, 0, ?)
                    """,
                arguments: [feed, owner.description, now, fingerprint, number, now])
            return .fresh(PullTicket(feed: feed, source: source, owner: owner, pull: number, startedPull: number))
        }
    }

    /// Writes one accepted page of the pull `ticket` holds, in one transaction: its items (new ones
    /// invisible until ``finishPull(_:ticket:keepResume:)``), its validators (as a
    /// ``StoredPageSummary``, no body) and the point where a later pull resumes after it.
    ///
    /// - Parameter cacheKey: The cache key of the page's remembered response (see
    ///   ``StorePullMemory/key(for:)``); the response's own key when `nil`.
    /// - Throws: ``StoreError`` with kind ``StoreError/Kind/claimLost`` when another process took the
    ///   feed over (this one was presumed dead).
    @discardableResult
    public func stagePage(_ page: AcceptedPage, ticket: PullTicket) throws -> CommitSummary {
        let now = self.now().timeIntervalSince1970
        let prepared = Self.prepare(page.items, source: ticket.source, keepRaw: keepRaw)
        defer { checkpointer.wrote(bytes: Self.approximateSize(of: page.items)) }
        return try writing("save page \(page.number) of feed '\(ticket.feed)'") { db in
            guard
                let checkpoint = try Row.fetchOne(
                    db, sql: "SELECT fanout_count, fanout_last FROM pull_checkpoint WHERE feed = ? AND owner = ?",
                    arguments: [ticket.feed, ticket.owner.description])
            else {
                throw StoreError(
                    kind: .claimLost, path: path, operation: "save page \(page.number) of feed '\(ticket.feed)'",
                    detail: "another feedagg process took over this feed's pull")
            }
            try Self.saveResumePoint(page.resume, feed: ticket.feed, checkpoint: checkpoint, now: now, in: db)
            let summary = try Self.writeItems(
                prepared, feed: ticket.feed, source: ticket.source, pull: ticket.pull, now: now, staged: true,
                keepRaw: keepRaw, in: db)
            if let cached = page.cacheable {
                var entry = HTTPCacheEntry(
                    url: cached.key, status: 200, headers: cached.headers, body: Data(), etag: cached.etag,
                    lastModified: cached.lastModified)
                entry.page = StoredPageSummary(page)
                try Self.storeCacheEntry(entry, feed: ticket.feed, now: now, staged: true, in: db)
            }
            return summary
        }
    }

    /// Records where the walk continues after a saved page. The remaining URLs of a fan-out are a
    /// suffix of the list its first page saved: only their number is written then (see the `v3`
    /// migration), so the cost per page does not grow with the feed. URLs are stored redacted.
    static func saveResumePoint(_ resume: ResumePoint?, feed: String, checkpoint: Row, now: Double, in db: Database)
        throws
    {
        var fanoutRemaining: Int?
        var resumeJSON: String?
        if var point = resume {
            if point.knownCount, let last = point.urls.last {
                let redactedLast = Redaction.redact(last)
                let storedCount = try checkpoint.decode(Int?.self, forColumn: "fanout_count")
                let storedLast = try checkpoint.decode(String?.self, forColumn: "fanout_last")
                if storedLast != redactedLast || (storedCount ?? 0) < point.urls.count {
                    let list = point.urls.map { Redaction.redact($0) }
                    try db.execute(
                        sql: "UPDATE pull_checkpoint SET fanout = ?, fanout_count = ?, fanout_last = ? WHERE feed = ?",
                        arguments: [
                            String(decoding: try JSONEncoder().encode(list), as: UTF8.self), list.count, redactedLast, feed,
                        ])
                }
                fanoutRemaining = point.urls.count
                point.urls = []
            } else {
                point.urls = point.urls.map { URL(string: Redaction.redact($0)) ?? $0 }
            }
            point.visited = point.visited.map { Redaction.redact($0) }
            resumeJSON = String(decoding: try JSONEncoder().encode(point), as: UTF8.self)
        }
        try db.execute(
            sql: """
                UPDATE pull_checkpoint SET resume = ?, fanout_remaining = ?, pages = pages + 1, heartbeat = ?
                WHERE feed = ?
                """,
            arguments: [resumeJSON, fanoutRemaining, now, feed])
    }

    /// The resume point stored in checkpoint `row`, with a fan-out's remaining URLs put back from
    /// its stored list; `nil` when there is none or it cannot be read.
    static func resumePoint(in row: Row) throws -> ResumePoint? {
        guard let text = try row.decode(String?.self, forColumn: "resume"),
            var point = try? JSONDecoder().decode(ResumePoint.self, from: Data(text.utf8))
        else { return nil }
        if let remaining = try row.decode(Int?.self, forColumn: "fanout_remaining") {
            guard let list = try row.decode(String?.self, forColumn: "fanout"),
                let urls = try? JSONDecoder().decode([String].self, from: Data(list.utf8)),
                remaining <= urls.count
            else { return nil }
            point.urls = urls.suffix(remaining).compactMap(URL.init(string:))
            guard point.urls.count == remaining else { return nil }
        }
        return point
    }

    /// Ends the pull `ticket` holds, in one transaction: records it on the feed row and makes
    /// everything it staged visible at once (a crash before leaves the feed as it was, with its
    /// pages staged for the next pull to continue). With `keepResume` (a failure worth resuming)
    /// the checkpoint stays, released, so the next pull continues after the last saved page;
    /// otherwise it is removed.
    @discardableResult
    public func finishPull(_ pull: FeedPull, ticket: PullTicket, keepResume: Bool) throws -> CommitSummary {
        let now = self.now().timeIntervalSince1970
        return try writing("commit feed '\(pull.feed)'") { db in
            var summary = CommitSummary()
            summary.missing = try Self.finish(pull, pull: ticket.pull, startedPull: ticket.startedPull, now: now, in: db)
            for entry in pull.cacheEntries {
                try Self.storeCacheEntry(entry, feed: pull.feed, now: now, staged: false, in: db)
            }
            if keepResume {
                try db.execute(
                    sql: "UPDATE pull_checkpoint SET owner = NULL, heartbeat = ? WHERE feed = ? AND resume IS NOT NULL",
                    arguments: [now, pull.feed])
                try db.execute(sql: "DELETE FROM pull_checkpoint WHERE feed = ? AND resume IS NULL", arguments: [pull.feed])
            } else {
                try db.execute(sql: "DELETE FROM pull_checkpoint WHERE feed = ?", arguments: [pull.feed])
            }
            try beforeCommit?(pull.feed)
            return summary
        }
    }

    /// Whether another process that still runs holds the claim on `feed`.
    static func isClaimedByLiveProcess(_ feed: String, in db: Database) throws -> Bool {
        guard let text = try String.fetchOne(db, sql: "SELECT owner FROM pull_checkpoint WHERE feed = ?", arguments: [feed]),
            let holder = PullOwner(text)
        else { return false }
        return holder != .current && holder.isAlive
    }

    /// About how many bytes writing `items` adds to the log (their JSON, and as much again for the
    /// other columns, indexes and the pages rewritten when they become visible).
    static func approximateSize(of items: [FeedItem]) -> Int {
        items.reduce(0) { $0 + 2 * ($1.raw?.count ?? 0) + 512 }
    }

    /// Drops what an unfinished pull of `feed` staged (invisible items, waiting updates and
    /// validators) and its checkpoint.
    static func discardStaged(feed: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM item WHERE feed = ? AND staged = 1", arguments: [feed])
        try db.execute(sql: "DELETE FROM staged_update WHERE feed = ?", arguments: [feed])
        try db.execute(sql: "DELETE FROM staged_cache WHERE feed = ?", arguments: [feed])
        try db.execute(sql: "DELETE FROM pull_checkpoint WHERE feed = ?", arguments: [feed])
    }

    /// The checkpoint of `feed`, if a pull of it is unfinished: where it resumes and who holds it.
    public func checkpoint(feed: String) throws -> (resume: ResumePoint?, owner: PullOwner?, pages: Int)? {
        try reading("read the checkpoint of feed '\(feed)'") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM pull_checkpoint WHERE feed = ?", arguments: [feed])
            else { return nil }
            let resume = try Self.resumePoint(in: row)
            let owner = try row.decode(String?.self, forColumn: "owner").flatMap(PullOwner.init)
            return (resume, owner, try row.decode(Int.self, forColumn: "pages"))
        }
    }
}
