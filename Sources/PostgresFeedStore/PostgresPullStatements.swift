// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import PostgresNIO

/// The two statements every refresh of an unchanged feed runs, prepared once per connection:
/// claiming a feed with no checkpoint (``PostgresFeedStore/beginPull(feed:source:fingerprint:restart:owner:config:)``)
/// and ending a pull that staged nothing (``PostgresFeedStore/finishUnstaged(_:keepResume:now:)``).
///
/// Sent as one-off statements, each was parsed, analysed and planned on every call: in a W6
/// refresh cycle (2,000 feeds answered `304`, 4,000 of these statements) PostgreSQL's parsing and
/// planning were an eighth of the machine's CPU. Prepared, PostgreSQL plans the first five
/// executions for their binds and then keeps one generic plan (each is a few primary-key lookups,
/// which no bind changes). The binds' types are given, not taken from the first execution's binds
/// (where a `NULL` has no type of its own).
struct FreshPullStatement: PostgresPreparedStatement {
    static let name = "feedagg_begin_fresh_pull"
    static let sql = """
        WITH f AS (
            INSERT INTO feed (name, source, config) VALUES ($1, $2, $3)
            ON CONFLICT (name) DO UPDATE SET source = excluded.source, config = COALESCE(excluded.config, feed.config)
            RETURNING pulls),
        c AS (
            INSERT INTO pull_checkpoint (feed, owner, owner_host, heartbeat, fingerprint, started_pull, resume, pages,
                created_at)
            SELECT $1, $4, $5, $6, $7, f.pulls + 1, NULL, 0, $6 FROM f
            ON CONFLICT (feed) DO NOTHING
            RETURNING started_pull)
        SELECT started_pull FROM c
        """
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .text, .text, .text, .float8, .text]
    typealias Row = Int64

    var feed: String
    var source: String
    var config: String?
    var owner: String
    var host: String
    var now: Double
    var fingerprint: String

    func makeBindings() throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: 7)
        binds.append(feed)
        binds.append(source)
        binds.append(config)
        binds.append(owner)
        binds.append(host)
        binds.append(now)
        binds.append(fingerprint)
        return binds
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
}

/// Ends a pull that staged nothing when nothing is staged for its feed: see
/// ``PostgresFeedStore/finishUnstaged(_:keepResume:now:)`` and ``FreshPullStatement``. Its one row
/// says whether anything was staged (and so nothing written).
struct UnstagedFinishStatement: PostgresPreparedStatement {
    static let name = "feedagg_finish_unstaged_pull"
    static let sql = """
        WITH s AS (
            SELECT EXISTS (SELECT 1 FROM item WHERE feed = $1 AND staged)
                OR EXISTS (SELECT 1 FROM staged_update WHERE feed = $1)
                OR EXISTS (SELECT 1 FROM staged_cache WHERE feed = $1) AS staged),
        u AS (
            UPDATE feed SET pulls = pulls + 1, last_attempt_at = $2, last_error = $3,
                last_pages = $4, last_requests = $5, last_items = $6,
                last_success_at = CASE WHEN $7 THEN $2 ELSE last_success_at END,
                page_count = COALESCE($8, page_count)
            WHERE name = $1 AND NOT (SELECT staged FROM s)
            RETURNING 1),
        d AS (
            DELETE FROM pull_checkpoint WHERE feed = $1 AND NOT (SELECT staged FROM s)
            RETURNING 1)
        SELECT staged FROM s
        """
    static let bindingDataTypes: [PostgresDataType] = [.text, .float8, .text, .int8, .int8, .int8, .bool, .int8]
    typealias Row = Bool

    var feed: String
    var now: Double
    var error: String?
    var pages: Int64
    var requests: Int64
    var items: Int64
    var settled: Bool
    var pageCount: Int64?

    func makeBindings() throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: 8)
        binds.append(feed)
        binds.append(now)
        binds.append(error)
        binds.append(pages)
        binds.append(requests)
        binds.append(items)
        binds.append(settled)
        binds.append(pageCount)
        return binds
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool { try row.decode(Bool.self) }
}

extension PostgresConnection {
    /// The rows of the prepared `statement` (prepared on this connection the first time it runs
    /// here; PostgresNIO keeps the names it prepared per connection), room made for `expecting`.
    func rows<Statement: PostgresPreparedStatement>(of statement: Statement, expecting: Int = 1) async throws
        -> [Statement.Row]
    {
        var rows: [Statement.Row] = []
        rows.reserveCapacity(expecting)
        for try await row in try await execute(statement, logger: PostgresFeedStore.logger) { rows.append(row) }
        return rows
    }
}

#endif
