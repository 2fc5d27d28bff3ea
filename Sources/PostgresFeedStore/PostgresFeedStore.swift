// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedCore
public import FeedStorage
public import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
package import Synchronization

/// The store on PostgreSQL: the same ``StoreDriver`` semantics as the SQLite `FeedStore`, on
/// PostgresNIO's `PostgresClient` connection pool (no ORM).
///
/// Every feed's pull is written in one transaction (`BEGIN` … `COMMIT` on one leased connection);
/// readers see a feed before or fully after it. The schema (docs/store.md, "PostgreSQL") mirrors
/// SQLite's, with `DOUBLE PRECISION` epoch seconds for dates, `BYTEA` for JSON bodies and `TEXT
/// COLLATE "C"` for feed names and item ids (so text orders by its bytes, as in SQLite, and a stream
/// cursor reads the same on both engines). Migrations are versioned in `feedagg_migrations` and run
/// under `pg_advisory_xact_lock`, so processes opening one database at once migrate it once.
///
/// Methods are synchronous (see ``StoreDriver``); ``PostgresBridge`` runs the async driver off the
/// cooperative pool.
public final class PostgresFeedStore: StoreDriver {
    /// The URL (its ``PostgresURL/redacted`` form is ``location``).
    public let url: PostgresURL
    /// How its connections reach the server (TLS, verification), as the first connection found.
    public let link: PostgresLink
    /// Whether commits store each item's original JSON.
    public let keepRaw: Bool
    /// The kept first connection and the pool (``PostgresConnections``).
    let connections: PostgresConnections
    let bridge: PostgresBridge
    let runner: Task<Void, Never>
    let now: @Sendable () -> Date
    /// The listings' repeated entries, counted once per change (``StreamRepeatsCache``).
    let repeatsCache = StreamRepeatsCache()
    /// How many rows of the search index a walk reads and sorts instead of walking the stream
    /// order (``PostgresStreamScan/candidateLimit``); tests lower it to walk every search.
    package let searchCandidateLimit = Atomic<Int>(PostgresStreamScan.candidateLimit)
    /// Narrowed reads' totals, counted once per change (``StreamTotalsCache``).
    let totalsCache = StreamTotalsCache()
    /// The frequent search terms' rows and the entry sets a search's count is made from, once per
    /// change (``PostgresSearchDocuments``).
    package let searchDocuments = SearchDocumentCache()
    /// The feeds' sources and visible counts, read again only when the change number moves.
    let feedTable = PostgresFeedTable()
    /// Pages read in one statement (``PostgresStreamScan/oneStatementPage(after:limit:repeats:)``)
    /// since the store opened; tests check that their reads take that path.
    package let oneStatementPages = Atomic<Int>(0)
    /// Search pages read in one statement (``oneStatementSearchPage``), for the tests.
    package let oneStatementSearchPages = Atomic<Int>(0)
    /// How long a claim by a process on another machine holds without a heartbeat (a page written):
    /// past it, the claim is taken over (see ``beginPull(feed:source:fingerprint:restart:owner:config:)``).
    public let claimTimeout: TimeInterval
    /// This machine's name, recorded with each claim.
    static let hostName = ProcessInfo.processInfo.hostName
    static let logger = Logger(label: "feedagg.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The redacted URL.
    public var location: String { url.redacted }

    private init(
        url: PostgresURL, link: PostgresLink, connections: PostgresConnections, bridge: PostgresBridge, runner: Task<Void, Never>,
        now: @escaping @Sendable () -> Date, keepRaw: Bool, claimTimeout: TimeInterval, readTimeout: Duration
    ) {
        self.readTimeout = readTimeout
        self.url = url
        self.link = link
        self.connections = connections
        self.bridge = bridge
        self.runner = runner
        self.now = now
        self.keepRaw = keepRaw
        self.claimTimeout = claimTimeout
    }

    /// Connects to the database `url` names and migrates its schema.
    ///
    /// - Throws: ``StoreError`` naming the redacted URL: ``StoreError/Kind/cannotOpen`` when the
    ///   server cannot be reached or refuses the login, ``StoreError/Kind/notAStore`` when the
    ///   database holds another program's tables, ``StoreError/Kind/schemaTooNew`` when a newer
    ///   feedagg migrated it.
    public static func open(
        url: PostgresURL, now: @escaping @Sendable () -> Date = { Date() }, keepRaw: Bool = true,
        connectTimeout: Duration = .seconds(10), claimTimeout: TimeInterval = 300, readTimeout: Duration = .seconds(30)
    ) throws -> PostgresFeedStore {
        let bridge = PostgresBridge()
        let link: PostgresLink
        var first: PostgresConnection?
        var configuration: PostgresClient.Configuration
        do {
            let connected = try connectFirst(url: url, connectTimeout: connectTimeout, bridge: bridge)
            (link, first) = (connected.0, connected.1)
            configuration = try url.clientConfiguration(maximumConnections: 8)
        } catch {
            PostgresConnections.close(first)
            if let error = error as? StoreError {
                throw StoreError(kind: error.kind, path: url.redacted, operation: error.operation, detail: error.detail)
            }
            throw StoreError.postgres(error, url: url, operation: "open")
        }
        configuration.options.connectTimeout = connectTimeout
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        // Detached: a task created inside a service of a ServiceLifecycle group (serve's scheduler)
        // inherits the group's graceful-shutdown task-local, and `PostgresClient.run()` shuts its pool
        // down on graceful shutdown. On SIGTERM every running pull then lost its store mid-commit
        // (and some waited on it for good). The pool ends with ``close()``, when its pull is done.
        let runner = Task.detached(executorPreference: bridge.executor) { await client.run() }
        return PostgresFeedStore(
            url: url, link: link, connections: PostgresConnections(pool: client, first: first), bridge: bridge, runner: runner, now: now, keepRaw: keepRaw,
            claimTimeout: claimTimeout, readTimeout: readTimeout)
    }

    /// The applied migrations, oldest first.
    public func schemaVersions() throws -> [String] {
        try read("read the schema version") { db in
            try await db.rows("SELECT version FROM feedagg_migrations ORDER BY version").map { try $0.decode(String.self) }
        }
    }

    /// Closes the pool; any later call fails.
    ///
    /// The pool's shutdown (cancelling ``runner`` forces every connection closed) is not waited
    /// for: callers are often on Swift's cooperative pool, and PostgresNIO's shutdown resumes timer
    /// tasks through that pool, so a caller blocking a pool thread until it ends could wait forever
    /// on a 2-core machine. The connections close on their own a moment later.
    public func close() throws {
        runner.cancel()
        connections.closeKept()
    }

    // MARK: - Error-mapping access

    /// Runs `body` on one leased connection in one transaction (committed when it returns).
    func transaction<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        throws -> T
    {
        try inTransaction(operation, begin: "BEGIN", body)
    }

    /// Runs `body` on one leased connection in one read-only transaction (one consistent snapshot),
    /// waiting ``readTimeout`` at most.
    func session<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        throws -> T
    {
        try inTransaction(operation, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", timeout: readTimeout, body)
    }

    /// How long a read waits at most (``read(_:_:)``, ``session(_:_:)``) before it fails with
    /// ``StoreError/Kind/database``: with the database gone, PostgresNIO's pool keeps a connection
    /// request waiting about a minute before it gives up, and a page `feedagg serve` is asked for
    /// should fail sooner than that. Writes have no such limit (one that lands after its caller
    /// gave up would be reported as failed).
    public let readTimeout: Duration

    /// ``statement(_:_:)`` for a read: waits ``readTimeout`` at most.
    func read<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        throws -> T
    {
        try statement(operation, timeout: readTimeout, body)
    }

    /// ``read(_:_:)`` for async callers: awaits the driver (on the bridge's executor, or with
    /// `onCallersPool` on Swift's cooperative pool: ``PostgresBridge/value(timeout:onCallersPool:_:)``),
    /// no thread blocked waiting, ``readTimeout`` at most (then `body` is cancelled and its result
    /// dropped).
    func asyncRead<T: Sendable>(
        _ operation: String, onCallersPool: Bool = false, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await bridge.value(timeout: readTimeout, onCallersPool: onCallersPool) { [connections] in
                try await connections.withConnection { connection in try await body(connection) }
            }
        } catch {
            throw mapped(error, operation: operation)
        }
    }

    /// Runs `body`, which sends exactly one statement, on one leased connection without `BEGIN` and
    /// `COMMIT`: one statement sees one snapshot on its own, and the two round trips a transaction
    /// adds were most of the cost of the small reads every pull makes per feed. `timeout`: see
    /// ``PostgresBridge/wait(timeout:_:)`` (reads only).
    func statement<T: Sendable>(
        _ operation: String, timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) throws -> T {
        try access(operation, timeout: timeout) { [connections] in
            try await connections.withConnection { connection in try await body(connection) }
        }
    }

    /// Runs `body` between `begin` and `COMMIT` on one leased connection; `ROLLBACK` when it throws.
    private func inTransaction<T: Sendable>(
        _ operation: String, begin: PostgresQuery, timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) throws -> T {
        try access(operation, timeout: timeout) { [connections] in
            try await Self.runTransaction(on: connections, begin: begin, body)
        }
    }

    /// ``transaction(_:_:)`` for async callers: awaits the driver directly (no bridge).
    func asyncTransaction<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await Self.runTransaction(on: connections, begin: "BEGIN", body)
        } catch {
            throw mapped(error, operation: operation)
        }
    }

    /// `begin`, `body` and `COMMIT` on one leased connection (`ROLLBACK` when `body` throws); run
    /// again when PostgreSQL picked it as a deadlock's victim (two commits marking each other's
    /// rows shared).
    private static func runTransaction<T: Sendable>(
        on connections: PostgresConnections, begin: PostgresQuery, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await connections.withConnection { connection in
            for attempt in 1...Self.deadlockAttempts {
                try await connection.exec(begin)
                do {
                    let result = try await body(connection)
                    try await connection.exec("COMMIT")
                    return result
                } catch {
                    _ = try? await connection.exec("ROLLBACK")
                    guard attempt < Self.deadlockAttempts, Self.isDeadlock(error) else { throw error }
                }
            }
            preconditionFailure("unreachable: the last attempt returns or throws")
        }
    }

    /// How many times a transaction runs when PostgreSQL chose it as a deadlock's victim.
    static let deadlockAttempts = 4

    /// Whether `error` is PostgreSQL's `deadlock_detected` (40P01).
    static func isDeadlock(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "40P01"
    }

    private func access<T: Sendable>(
        _ operation: String, timeout: Duration? = nil, _ body: @escaping @Sendable () async throws -> T
    ) throws -> T {
        do {
            return try bridge.wait(timeout: timeout, body)
        } catch {
            throw mapped(error, operation: operation)
        }
    }

    /// The ``StoreError`` to throw for `error`, naming the server.
    func mapped(_ error: any Error, operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let timedOut = error as? PostgresBridge.TimedOut {
            return StoreError(
                kind: .database, path: url.redacted, operation: operation,
                detail: "PostgreSQL at \(url.endpoint) did not answer within \(Int(timedOut.after.seconds)) s")
        }
        return StoreError.postgres(error, url: url, operation: operation)
    }
}

extension PostgresConnection {
    /// Runs `query`, discarding any rows.
    func exec(_ query: PostgresQuery) async throws {
        _ = try await self.query(query, logger: PostgresFeedStore.logger).collect()
    }

    /// The rows of `query`.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await self.query(query, logger: PostgresFeedStore.logger).collect()
    }

    /// The first row of `query`, if any.
    func row(_ query: PostgresQuery) async throws -> PostgresRandomAccessRow? {
        try await rows(query).first?.makeRandomAccess()
    }
}

extension PostgresRandomAccessRow {
    /// Column `name` decoded as `type`.
    func get<T: PostgresDecodable>(_ name: String, _ type: T.Type = T.self) throws -> T {
        try self[name].decode(T.self)
    }
}

#endif
