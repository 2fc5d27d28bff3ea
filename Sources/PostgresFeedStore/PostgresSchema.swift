// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedStorage
import PostgresNIO

/// The versioned PostgreSQL schema. Never edit a registered migration: add the next one.
///
/// Applied migrations are rows of `feedagg_migrations`. ``migrate(_:)`` runs in one transaction
/// holding `pg_advisory_xact_lock(feedagg)`: a second process opening the database at the same time
/// waits for the first to finish, then finds every migration applied.
enum PostgresSchema {
    /// The advisory lock key of migrations (`feedagg` in ASCII).
    static let lockKey: Int64 = 0x6665_6564_6167_67
    /// The advisory lock write transactions take before they mark the shared dedup keys they
    /// wrote (``PostgresFeedStore/writeItems(_:feed:pull:now:staged:keepRaw:vectors:bookkeeping:in:)``).
    static let sharedMarksLockKey: Int64 = 0x6665_6564_6167_68

    /// An item's content columns, the same in `item` and `staged_update` (interpolated into
    /// both, so the two tables cannot drift apart).
    static let itemContentColumns = """
        title TEXT NOT NULL,
            summary TEXT,
            url TEXT,
            author_name TEXT,
            author_url TEXT,
            author_avatar TEXT,
            image_url TEXT,
            published DOUBLE PRECISION,
            updated DOUBLE PRECISION,
        """

    /// A cached response's columns, the same in `http_cache` and `staged_cache`.
    static let cacheColumns = """
        url TEXT PRIMARY KEY,
            feed TEXT COLLATE "C" NOT NULL REFERENCES feed(name) ON DELETE CASCADE,
            etag TEXT,
            last_modified TEXT,
            status INTEGER NOT NULL,
            headers TEXT NOT NULL,
            body BYTEA NOT NULL,
            page TEXT,
            stored_at DOUBLE PRECISION NOT NULL
        """

    /// The migrations, in order. `v1` is the whole of SQLite's schema v5 (docs/store.md maps the two);
    /// `v2` adds what O(page) reads need.
    static let migrations: [(version: String, sql: [String])] = [
        (
            "v1",
            [
                // One row per feed ever committed; `pulls` counts commits, `config` is the owning
                // feeds.yaml, `visible_items` counts the feed's visible items.
                """
                CREATE TABLE feed (
                    name TEXT COLLATE "C" PRIMARY KEY,
                    source TEXT NOT NULL,
                    last_attempt_at DOUBLE PRECISION,
                    last_success_at DOUBLE PRECISION,
                    last_error TEXT,
                    last_pages BIGINT,
                    last_requests BIGINT,
                    last_items BIGINT,
                    page_count BIGINT,
                    pulls BIGINT NOT NULL DEFAULT 0,
                    config TEXT,
                    visible_items BIGINT NOT NULL DEFAULT 0
                )
                """,
                // Items by (feed, id), as SQLite's `item`; `staged` is a boolean.
                """
                CREATE TABLE item (
                    feed TEXT COLLATE "C" NOT NULL REFERENCES feed(name) ON DELETE CASCADE,
                    id TEXT COLLATE "C" NOT NULL,
                    dedup_key TEXT COLLATE "C" NOT NULL,
                    \(itemContentColumns)
                    sort_key DOUBLE PRECISION,
                    feed_position BIGINT NOT NULL,
                    raw BYTEA,
                    first_seen_at DOUBLE PRECISION NOT NULL,
                    last_seen_at DOUBLE PRECISION NOT NULL,
                    missing_since DOUBLE PRECISION,
                    seen_pull BIGINT NOT NULL,
                    content_hash BIGINT NOT NULL,
                    staged BOOLEAN NOT NULL DEFAULT FALSE,
                    shared BOOLEAN NOT NULL DEFAULT FALSE,
                    PRIMARY KEY (feed, id)
                )
                """,
                "CREATE INDEX item_stream_order ON item (sort_key DESC, feed, feed_position, id) WHERE NOT staged",
                "CREATE INDEX item_feed_position ON item (feed, feed_position)",
                "CREATE INDEX item_dedup_key ON item (dedup_key)",
                "CREATE INDEX item_staged ON item (feed) WHERE staged",
                """
                CREATE TABLE http_cache (
                    \(cacheColumns)
                )
                """,
                "CREATE INDEX http_cache_feed ON http_cache (feed)",
                """
                CREATE TABLE staged_cache (
                    \(cacheColumns)
                )
                """,
                "CREATE INDEX staged_cache_feed ON staged_cache (feed)",
                """
                CREATE TABLE staged_update (
                    feed TEXT COLLATE "C" NOT NULL REFERENCES feed(name) ON DELETE CASCADE,
                    id TEXT COLLATE "C" NOT NULL,
                    \(itemContentColumns)
                    raw BYTEA,
                    dedup_key TEXT COLLATE "C" NOT NULL,
                    content_hash BIGINT NOT NULL,
                    PRIMARY KEY (feed, id)
                )
                """,
                // The claim and resume point of a pull written page by page. `owner` is `pid:start`
                // on `owner_host`; `heartbeat` moves with every page written.
                """
                CREATE TABLE pull_checkpoint (
                    feed TEXT COLLATE "C" PRIMARY KEY REFERENCES feed(name) ON DELETE CASCADE,
                    owner TEXT,
                    owner_host TEXT,
                    heartbeat DOUBLE PRECISION,
                    fingerprint TEXT NOT NULL,
                    started_pull BIGINT NOT NULL,
                    resume TEXT,
                    pages BIGINT NOT NULL DEFAULT 0,
                    created_at DOUBLE PRECISION NOT NULL
                )
                """,
            ]
        ),
        // Reads are O(page) (PostgresStreamScan): a page walks `item_stream_order` from its cursor,
        // and only items whose dedup key another row carries (`shared`, maintained by every commit
        // since v1) need a de-duplication lookup; `item_shared` lists those, so a page's
        // `total_items` is Σ `feed.visible_items` minus their repeats, not a count of the store.
        // `shared` and `visible_items` are kept at write time since v1, so nothing needs a
        // back-fill; the two counters are recomputed once anyway, in case a v1 writer left them off.
        // `fillfactor` leaves room on each page so that the per-pull `last_seen_at` updates stay HOT
        // (no index entries written for a row that only moved its timestamps).
        (
            "v2",
            [
                """
                UPDATE item SET shared = TRUE WHERE NOT shared AND dedup_key IN (
                    SELECT dedup_key FROM item GROUP BY dedup_key HAVING COUNT(*) > 1)
                """,
                """
                UPDATE feed SET visible_items = counted.n FROM (
                    SELECT feed.name, (SELECT COUNT(*) FROM item WHERE item.feed = feed.name AND NOT staged) AS n
                    FROM feed) AS counted
                WHERE feed.name = counted.name AND feed.visible_items <> counted.n
                """,
                "CREATE INDEX item_shared ON item (dedup_key, feed) WHERE shared AND NOT staged",
                "ALTER TABLE item SET (fillfactor = 85)",
                "ANALYZE item",
            ]
        ),
        // A number every change a read can see moves (a feed's commit, undated items placed, feeds
        // deleted or pruned), in every process writing the database: `feedagg serve` keeps the pages
        // readers poll most rendered while it stays the same. Moved late in each such transaction
        // (the row lock it takes serialises the ends of concurrent commits, not their work).
        (
            "v3",
            [
                "CREATE TABLE store_change (id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL)",
                "INSERT INTO store_change (id, version) VALUES (1, 0)",
            ]
        ),
        // Search (issue 28): every item's `tsvector` (``PostgresSearchVector``), written with the
        // item by the same statements, and a GIN index over it. The stored items are indexed by
        // ``backfill(_:)`` before the index is built.
        (
            "v4",
            [
                "ALTER TABLE item ADD COLUMN search tsvector",
                "ALTER TABLE staged_update ADD COLUMN search tsvector",
            ]
        ),
        // The shared rows' own text index (as SQLite's `item_search_shared`, schema v8): a count
        // looks for the dedup keys of the shared rows that match. Over the whole GIN index the
        // planner estimated a few such rows and read all of `item` instead (290 ms at 1,000,000
        // items for `zanzibar OR zz5q`, against 0.05 ms with this index).
        (
            "v5",
            ["CREATE INDEX IF NOT EXISTS item_search_shared ON item USING gin (search) WHERE shared AND NOT staged"]
        ),
        // An integer key per item (as SQLite's `item.doc`), given by the insert: a server counts
        // searches from sets of these keys (``PostgresSearchDocuments``). Adding the identity
        // column numbers the stored items in the same statement (a rewrite of `item`, under the
        // migration lock).
        ("v6", ["ALTER TABLE item ADD COLUMN doc BIGINT GENERATED BY DEFAULT AS IDENTITY"]),
        // The text index holds visible rows only, as `item_stream_order` does: every search reads
        // visible rows (`NOT staged` is in each statement, which the planner needs to use a partial
        // index), and a pull written page by page no longer indexes each new item twice — once
        // when its page is staged and again when the pull's end reveals it (a new row version,
        // since `staged` is in the index predicates). A first pull of 50,000 items into
        // PostgreSQL spent about a fifth of its page writes in the index it never read. Rebuilt
        // under the migration lock: 9 s at 1,000,000 items with the default `maintenance_work_mem`
        // (64 MB), 5 s with 256 MB; readers wait for it.
        (
            "v7",
            [
                "DROP INDEX IF EXISTS item_search",
                "CREATE INDEX item_search ON item USING gin (search) WHERE NOT staged",
            ]
        ),
    ]

    /// Work a migration does in Swift after its statements, by version.
    static let afterMigration: [String: @Sendable (PostgresConnection) async throws -> Void] = [
        "v4": { connection in
            try await PostgresSearchVector.backfill(connection)
            try await connection.exec("CREATE INDEX item_search ON item USING gin (search)")
            try await connection.exec("ANALYZE item")
        }
    ]

    /// The channel every change of the change number is announced on (`NOTIFY`, its payload the
    /// new number; ``PostgresFeedStore/watchChangeNumber(_:)`` listens).
    static let changeChannel = "feedagg_store_change"

    /// Moves the store's change number (`v3`), in the transaction that changed what a read can see,
    /// and announces the new number on ``changeChannel`` (PostgreSQL delivers it when that
    /// transaction commits, and never when it rolls back).
    static func noteChange(in db: PostgresConnection) async throws {
        try await db.exec(
            """
            WITH changed AS (UPDATE store_change SET version = version + 1 WHERE id = 1 RETURNING version)
            SELECT pg_notify(\(changeChannel), version::text) FROM changed
            """)
    }

    /// Applies the missing migrations on `connection`, in one transaction under the advisory lock.
    static func migrate(_ connection: PostgresConnection) async throws {
        // The usual open finds every migration it knows applied: one query, no lock. Without this,
        // every store open (each pull of `feedagg serve` opens one) queued on the advisory lock
        // behind every other process's open. A database with versions this feedagg does not know
        // was migrated by a newer one; anything else (no table yet, a missing version) takes the
        // locked path below, which decides under the lock.
        let known = Set(migrations.map(\.version))
        let recorded: Set<String>? = try? await Set(
            connection.rows("SELECT version FROM feedagg_migrations").map { try $0.decode(String.self) })
        if let applied = recorded {
            if !applied.isSubset(of: known) {
                throw StoreError(
                    kind: .schemaTooNew, path: "", operation: "open",
                    detail: "migrations \(applied.sorted().joined(separator: ", "))")
            }
            if applied == known { return }
        }
        try await connection.exec("BEGIN")
        do {
            try await connection.exec("SELECT pg_advisory_xact_lock(\(lockKey))")
            let tables = try await connection.rows(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
            ).map { try $0.decode(String.self) }
            if !tables.isEmpty && !tables.contains("feedagg_migrations") {
                throw StoreError(
                    kind: .notAStore, path: "", operation: "open",
                    detail: "a database of another program: its tables are \(tables.prefix(5).joined(separator: ", "))")
            }
            try await connection.exec(
                """
                CREATE TABLE IF NOT EXISTS feedagg_migrations (
                    version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """)
            let applied = Set(
                try await connection.rows("SELECT version FROM feedagg_migrations").map { try $0.decode(String.self) })
            if !applied.isSubset(of: known) {
                throw StoreError(
                    kind: .schemaTooNew, path: "", operation: "open",
                    detail: "migrations \(applied.sorted().joined(separator: ", "))")
            }
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.sql { try await connection.exec(PostgresQuery(unsafeSQL: statement)) }
                try await afterMigration[migration.version]?(connection)
                try await connection.exec("INSERT INTO feedagg_migrations (version) VALUES (\(migration.version))")
            }
            try await connection.exec("COMMIT")
        } catch {
            _ = try? await connection.exec("ROLLBACK")
            throw error
        }
    }
}

#endif
