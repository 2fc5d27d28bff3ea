@_exported public import FeedStorage
public import Foundation
import GRDB
import FeedCore
package import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The local SQLite store: every item ever pulled, each feed's pull state and the HTTP cache.
///
/// One file in WAL mode (`synchronous = NORMAL`), opened through a GRDB `DatabasePool`: readers never block the writer, writes
/// are serialised (also across processes, which wait up to the busy timeout for the lock), and each
/// feed's pull is committed in one transaction, so a crash leaves a feed either before or fully after
/// its pull. The schema is versioned with GRDB's `DatabaseMigrator` (migration `v1`).
///
/// Dates are stored as REAL seconds since 1970-01-01 UTC; a `Date` built from epoch seconds (as every
/// source does through `ISO8601`) round-trips bit for bit. Items keep their original JSON (`raw`)
/// when the store is opened with `keepRaw` (the default here; `feedagg pull` keeps it only with the
/// `keep_raw: true` setting, see docs/store.md).
///
/// Methods are synchronous and may block on SQLite I/O and on the lock; they are safe to call from
/// any thread or task.
public final class FeedStore: StoreDriver {
    /// The store file's path (``StoreDriver/location``).
    public var location: String { path }

    /// The store file's path.
    public let path: String
    let pool: DatabasePool
    let now: @Sendable () -> Date
    /// Test hook: runs inside a commit's write transaction after every write, before COMMIT.
    let beforeCommit: (@Sendable (_ feed: String) throws -> Void)?
    /// Whether commits store each item's original JSON (``FeedItem/raw``); see ``open(path:busyTimeout:now:keepRaw:)``.
    public let keepRaw: Bool
    /// Checkpoints the write-ahead log off the writer while pulls write.
    let checkpointer: BackgroundCheckpointer
    /// The listings' repeated entries, counted once per change (``StreamRepeatsCache``).
    let repeatsCache = StreamRepeatsCache()
    /// Reads' totals, counted once per change (``StreamTotalsCache``).
    let totalsCache = StreamTotalsCache()
    /// The frequent search terms' rows and the entry sets a search's count combines them with,
    /// once per change (``SearchDocumentCache``).
    let searchDocuments = SearchDocumentCache()
    /// The listings reads resolve (the stored feeds' sources and ranks), once per change; each
    /// holds a map of every stored feed, so fewer are kept than counts.
    let listingCache = StoreChangeCache<StreamListing.Key, StreamListing>(capacity: 64)
    /// The connection ``awaitChangeVersion()`` reads on (opened at its first call).
    let changeReader = Mutex<ChangeReader>(.unopened)
    /// How many rows of the full-text index a search's walk reads and sorts instead of walking the
    /// stream index (``StreamScan/candidateLimit``); tests lower it to walk every search.
    package let searchCandidateLimit = Atomic<Int>(StreamScan.candidateLimit)
    /// Test hook: when above 0, a words-only search whose index candidates would be read walks the
    /// stream index first with this budget of rows, then reads the candidates if it runs out
    /// (``StreamScan/walk(reverse:after:wanted:entries:reset:budget:_:)``).
    package let searchWalkBudgetOverride = Atomic<Int>(0)
    /// The writer's own automatic checkpoint, a backstop behind ``checkpointer`` (pages of 4 KiB).
    static let autocheckpointPages = 10_000

    private init(
        path: String, pool: DatabasePool, now: @escaping @Sendable () -> Date,
        beforeCommit: (@Sendable (String) throws -> Void)?, keepRaw: Bool
    ) {
        self.keepRaw = keepRaw
        self.path = path
        self.pool = pool
        self.now = now
        self.beforeCommit = beforeCommit
        self.checkpointer = BackgroundCheckpointer(path: path)
    }

    /// Opens (creating it and its parent directories if needed) and migrates the store at `path`.
    ///
    /// - Parameters:
    ///   - path: The SQLite file.
    ///   - busyTimeout: How long a write waits for another connection's lock before failing with
    ///     ``StoreError/Kind/locked``.
    ///   - now: The clock stamped on pulls and items (`first_seen_at`, `last_seen_at`…).
    ///   - keepRaw: Whether commits store each item's original JSON. Without it, items are stored
    ///     with their mapped fields only (`raw` NULL; a changed item's stored JSON is dropped too);
    ///     the content digest is still the fetched item's, so changes are detected as before.
    public static func open(
        path: String, busyTimeout: Duration = .seconds(5), now: @escaping @Sendable () -> Date = { Date() },
        keepRaw: Bool = true
    ) throws -> FeedStore {
        try open(path: path, busyTimeout: busyTimeout, now: now, beforeCommit: nil, keepRaw: keepRaw)
    }

    static func open(
        path: String, busyTimeout: Duration, now: @escaping @Sendable () -> Date,
        beforeCommit: (@Sendable (String) throws -> Void)?, keepRaw: Bool = true
    ) throws -> FeedStore {
        // Two processes creating or migrating one file at once can get SQLITE_BUSY without SQLite
        // waiting (switching to WAL, upgrading a lock): retry the whole open until the busy timeout.
        let deadline = ContinuousClock.now + busyTimeout
        while true {
            do {
                return try openOnce(
                    path: path, busyTimeout: busyTimeout, now: now, beforeCommit: beforeCommit, keepRaw: keepRaw)
            } catch let error as StoreError where error.kind == .locked && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.02 + Double.random(in: 0..<0.03))
            }
        }
    }

    private static func openOnce(
        path: String, busyTimeout: Duration, now: @escaping @Sendable () -> Date,
        beforeCommit: (@Sendable (String) throws -> Void)?, keepRaw: Bool
    ) throws -> FeedStore {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError(
                kind: .cannotOpen, path: path, operation: "create directory",
                detail: "cannot create \(directory.path): \(error.localizedDescription)")
        }
        try prepareFile(path)
        var configuration = Configuration()
        configuration.label = "feedagg.store"
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(max(0, busyTimeout.seconds))
        // WAL with synchronous = NORMAL: a commit is atomic and survives a crash or kill -9 of the
        // process; only a power loss may drop the last commits (never corrupt the file). FULL
        // would fsync the WAL on every feed's commit.
        // The automatic checkpoint is a backstop: BackgroundCheckpointer keeps the log short
        // without stalling the writer.
        configuration.prepareDatabase { db in
            db.add(function: SearchIndex.function)
            db.add(function: SearchIndex.rowTest)
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.autocheckpointPages)")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN {
            throw StoreError(kind: .cannotOpen, path: path, operation: "open", detail: error.message ?? "\(error)")
        } catch {
            throw StoreError.wrapping(error, path: path, operation: "open")
        }
        do {
            let migrator = Schema.migrator
            let tables = try pool.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
            if !tables.isEmpty && !tables.contains("grdb_migrations") {
                try? pool.close()
                throw StoreError(
                    kind: .notAStore, path: path, operation: "open",
                    detail: "a SQLite database of another program: its tables are \(tables.prefix(5).joined(separator: ", "))")
            }
            if try pool.read({ try migrator.hasBeenSuperseded($0) }) {
                let applied = try pool.read { try migrator.appliedIdentifiers($0) }
                throw StoreError(
                    kind: .schemaTooNew, path: path, operation: "open",
                    detail: "migrations \(applied.sorted().joined(separator: ", "))")
            }
            // Two processes migrating one file at once (a new store opened by two commands, or by
            // `pull` and a reader): GRDB reads the applied migrations once, then runs each missing one
            // in its own transaction, so the slower process may run one the other has just committed
            // (`duplicate column name`, `table feed already exists`; 7 of 240 opens of new files by
            // 8 processes at once failed so). Each migration is one transaction, so the failed one left
            // nothing behind: read the applied ones again and go on, until the schema is complete.
            let deadline = ContinuousClock.now + busyTimeout
            while true {
                do {
                    try migrator.migrate(pool)
                    break
                } catch {
                    if (try? pool.read { try migrator.hasCompletedMigrations($0) }) == true { break }
                    guard ContinuousClock.now < deadline else { throw error }
                    Thread.sleep(forTimeInterval: 0.01 + Double.random(in: 0..<0.02))
                }
            }
        } catch {
            throw StoreError.wrapping(error, path: path, operation: "migrate the schema")
        }
        return FeedStore(path: path, pool: pool, now: now, beforeCommit: beforeCommit, keepRaw: keepRaw)
    }

    /// Creates a missing store file empty with mode 0600 (SQLite gives its `-wal` and `-shm` files
    /// the same mode), and rejects an existing non-empty file that is not SQLite.
    static func prepareFile(_ path: String) throws {
        let descriptor = systemOpen(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            systemClose(descriptor)
            return
        }
        guard errno == EEXIST, let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if !header.isEmpty && header != Data("SQLite format 3\0".utf8) {
            throw StoreError(kind: .notAStore, path: path, operation: "open", detail: "the file is not a SQLite database")
        }
    }

    /// The default store of the configuration file at `configPath`:
    /// `$XDG_DATA_HOME/feedagg/stores/<stem>-<hash>.sqlite`, else
    /// `$HOME/.local/share/feedagg/stores/<stem>-<hash>.sqlite`, where `<stem>` names the file and
    /// its directory (`myproject-feeds`) and `<hash>` is a digest of the file's absolute path with
    /// symbolic links resolved, so each configuration gets its own store.
    public static func defaultPath(forConfig configPath: String, environment: [String: String]) throws -> String {
        let config = canonicalConfigPath(configPath)
        let url = URL(fileURLWithPath: config)
        let readable = [url.deletingLastPathComponent().lastPathComponent, url.deletingPathExtension().lastPathComponent]
            .map { component in
                String(component.unicodeScalars.map { scalar in
                    scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_")
                        ? Character(scalar) : "_"
                }.prefix(40))
            }
            .filter { !$0.isEmpty && $0 != "_" }
            .joined(separator: "-")
        let name = (readable.isEmpty ? "feeds" : readable) + "-" + digest(config) + ".sqlite"
        return URL(fileURLWithPath: try dataDirectory(environment: environment))
            .appendingPathComponent("feedagg/stores").appendingPathComponent(name).path
    }

    /// `path` made absolute (against the working directory) with symbolic links resolved: the
    /// identity of a configuration file, recorded as the owner of the feeds it pulls.
    public static func canonicalConfigPath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// 64-bit FNV-1a of `text`'s UTF-8, as 12 hexadecimal digits (stable across runs and platforms).
    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String((String(repeating: "0", count: max(0, 16 - hex.count)) + hex).prefix(12))
    }

    /// `$XDG_DATA_HOME` when absolute, else `$HOME/.local/share`.
    static func dataDirectory(environment: [String: String]) throws -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data }
        if let home = environment["HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home).appendingPathComponent(".local/share").path
        }
        throw StoreError(
            kind: .noDefaultLocation, path: "", operation: "locate the store",
            detail: "neither XDG_DATA_HOME (absolute) nor HOME is set")
    }

    /// The single store every configuration shared before stores were per configuration:
    /// `$XDG_DATA_HOME/feedagg/feedagg.sqlite`, else
    /// `$HOME/.local/share/feedagg/feedagg.sqlite` (a relative or empty `XDG_DATA_HOME` is ignored, as
    /// the XDG spec says).
    public static func defaultPath(environment: [String: String]) throws -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data).appendingPathComponent("feedagg/feedagg.sqlite").path
        }
        if let home = environment["HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home).appendingPathComponent(".local/share/feedagg/feedagg.sqlite").path
        }
        throw StoreError(
            kind: .noDefaultLocation, path: "", operation: "locate the store",
            detail: "neither XDG_DATA_HOME (absolute) nor HOME is set")
    }

    /// Runs SQLite's `PRAGMA integrity_check`; `true` when it answers `ok`.
    public func integrityCheck() throws -> Bool {
        try reading("check integrity") { db in
            let rows = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            return rows == ["ok"]
        }
    }

    /// The names of the applied schema migrations, oldest first (`["v1"]`).
    public func schemaVersions() throws -> [String] {
        try reading("read the schema version") { db in try Schema.migrator.completedMigrations(db) }
    }

    /// Closes the database connections; any later call fails.
    public func close() throws {
        checkpointer.close()
        do {
            try changeReader.withLock { reader in
                if case .open(let queue) = reader { try queue.close() }
                reader = .closed
            }
            try pool.close()
        } catch {
            throw StoreError.wrapping(error, path: path, operation: "close")
        }
    }

    // MARK: - Error-mapping access

    func reading<T>(_ operation: String, _ body: (Database) throws -> T) throws -> T {
        do { return try pool.read(body) } catch { throw StoreError.wrapping(error, path: path, operation: operation) }
    }

    func writing<T>(_ operation: String, _ body: (Database) throws -> T) throws -> T {
        do { return try pool.write(body) } catch { throw StoreError.wrapping(error, path: path, operation: operation) }
    }
}

#if canImport(Glibc)
    private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { Glibc.open(path, flags, mode) }
    private func systemClose(_ descriptor: Int32) { _ = Glibc.close(descriptor) }
#elseif canImport(Darwin)
    private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { Darwin.open(path, flags, mode) }
    private func systemClose(_ descriptor: Int32) { _ = Darwin.close(descriptor) }
#endif
