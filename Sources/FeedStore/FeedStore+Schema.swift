import GRDB

/// The versioned schema. Never edit a registered migration: add the next one (`v2`…).
enum Schema {
    /// The columns of an item's content, shared by `item` (v1) and `staged_update` (v2), one per
    /// line as the statements below lay them out: the SQL each migration runs is the text it ran
    /// when it was written, byte for byte.
    private static let itemContentColumns = [
        "title TEXT NOT NULL", "summary TEXT", "url TEXT", "author_name TEXT", "author_url TEXT", "author_avatar TEXT",
        "image_url TEXT", "published REAL", "updated REAL",
    ].joined(separator: ",\n    ")

    /// The columns of a remembered response, shared by `http_cache` (v1) and `staged_cache` (v2),
    /// laid out like ``itemContentColumns``.
    private static let cachedResponseColumns = [
        "url TEXT PRIMARY KEY NOT NULL", "feed TEXT NOT NULL REFERENCES feed(name) ON DELETE CASCADE", "etag TEXT",
        "last_modified TEXT", "status INTEGER NOT NULL", "headers TEXT NOT NULL", "body BLOB NOT NULL",
    ].joined(separator: ",\n    ")

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // One row per feed ever committed. `pulls` counts commits; items seen in the latest
            // commit carry it in `seen_pull`, so a complete pull can mark the others missing.
            try db.execute(
                sql: """
                    CREATE TABLE feed (
                        name TEXT PRIMARY KEY NOT NULL,
                        source TEXT NOT NULL,
                        last_attempt_at REAL,
                        last_success_at REAL,
                        last_error TEXT,
                        last_pages INTEGER,
                        last_requests INTEGER,
                        last_items INTEGER,
                        page_count INTEGER,
                        pulls INTEGER NOT NULL DEFAULT 0
                    );
                    """)
            // Items, keyed by (feed, id). Dates: REAL epoch seconds. `sort_key`: the stream position,
            // sortDate for dated items, a key fixed at first placement for undated ones (NULL while
            // not placed yet). `feed_position`: wire index when first stored, offset past the feed's
            // existing items, never changed afterwards.
            try db.execute(
                sql: """
                    CREATE TABLE item (
                        feed TEXT NOT NULL REFERENCES feed(name) ON DELETE CASCADE,
                        id TEXT NOT NULL,
                        dedup_key TEXT NOT NULL,
                        \(itemContentColumns),
                        sort_key REAL,
                        feed_position INTEGER NOT NULL,
                        raw BLOB,
                        first_seen_at REAL NOT NULL,
                        last_seen_at REAL NOT NULL,
                        missing_since REAL,
                        seen_pull INTEGER NOT NULL,
                        content_hash INTEGER NOT NULL,
                        PRIMARY KEY (feed, id)
                    );
                    CREATE INDEX item_stream_order ON item(sort_key DESC, feed, feed_position);
                    CREATE INDEX item_feed_position ON item(feed, feed_position);
                    CREATE INDEX item_dedup_key ON item(dedup_key);
                    """)
            // Remembered responses by (redacted) URL, owned by the feed whose commit wrote them.
            try db.execute(
                sql: """
                    CREATE TABLE http_cache (
                        \(cachedResponseColumns),
                        stored_at REAL NOT NULL
                    );
                    CREATE INDEX http_cache_feed ON http_cache(feed);
                    """)
        }
        // Pulls written page by page. A pull's new items are inserted as they arrive with
        // `staged = 1` (invisible to every read) and become visible together when the feed's pull
        // ends (one small UPDATE, no copy); changed items wait in `staged_update`; validators wait
        // in `staged_cache`. `pull_checkpoint` holds, per feed, the process pulling it now (`owner`,
        // `heartbeat`) and where an interrupted pull resumes (`resume`, a JSON ResumePoint with
        // secrets redacted). http_cache rows written by staged pulls keep the decoded page (`page`:
        // item ids, totals, next cursor) instead of the body.
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    ALTER TABLE item ADD COLUMN staged INTEGER NOT NULL DEFAULT 0;
                    CREATE INDEX item_staged ON item(feed) WHERE staged = 1;
                    ALTER TABLE http_cache ADD COLUMN page TEXT;
                    CREATE TABLE staged_cache (
                        \(cachedResponseColumns),
                        page TEXT,
                        stored_at REAL NOT NULL
                    );
                    CREATE INDEX staged_cache_feed ON staged_cache(feed);
                    CREATE TABLE staged_update (
                        feed TEXT NOT NULL REFERENCES feed(name) ON DELETE CASCADE,
                        id TEXT NOT NULL,
                        \(itemContentColumns),
                        raw BLOB,
                        dedup_key TEXT NOT NULL,
                        content_hash INTEGER NOT NULL,
                        PRIMARY KEY (feed, id)
                    );
                    CREATE TABLE pull_checkpoint (
                        feed TEXT PRIMARY KEY NOT NULL REFERENCES feed(name) ON DELETE CASCADE,
                        owner TEXT,
                        heartbeat REAL,
                        fingerprint TEXT NOT NULL,
                        started_pull INTEGER NOT NULL,
                        resume TEXT,
                        pages INTEGER NOT NULL DEFAULT 0,
                        created_at REAL NOT NULL
                    );
                    """)
        }
        // A fan-out's remaining page URLs are stored once per walk (`fanout`, a JSON list, redacted)
        // rather than with every page: each page then records only how many remain
        // (`fanout_remaining`), so a walk of N pages writes O(N) checkpoint bytes, not O(N²).
        migrator.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    ALTER TABLE pull_checkpoint ADD COLUMN fanout TEXT;
                    ALTER TABLE pull_checkpoint ADD COLUMN fanout_count INTEGER;
                    ALTER TABLE pull_checkpoint ADD COLUMN fanout_last TEXT;
                    ALTER TABLE pull_checkpoint ADD COLUMN fanout_remaining INTEGER;
                    """)
        }
        // The configuration file that owns each feed (its absolute path), so one store shared by
        // several feeds.yaml files never prunes another's feeds. NULL: written before v4 (unknown).
        migrator.registerMigration("v4") { db in
            try db.execute(sql: "ALTER TABLE feed ADD COLUMN config TEXT")
        }
        // Reading is O(page): `show` walks the stream straight from an index instead of computing it.
        // `item_stream_order` becomes a covering index of the visible items in stream order (the
        // sort key, maintained at write time, then what a page needs to break ties and de-duplicate).
        // `shared` marks every item whose dedup key another row also carries (set at write time,
        // never cleared: a stale 1 only costs a lookup), so only those need a de-duplication lookup;
        // `item_shared` counts them. `feed.visible_items` counts each feed's visible items, so a
        // page's `total_items` costs one row per feed plus the shared items, not a scan of the store.
        // (Covering indexes for an incremental pull's baseline — (feed, staged, id, content_hash)
        // and (feed, staged, updated) — were tried: W5's unchanged pull went from ~0.2 s to ~0.15 s,
        // but its first pull's system time doubled, 1.2-1.4 s to 2.9-3.3 s, from writing more
        // random index pages to the WAL. Not kept.)
        migrator.registerMigration("v5") { db in
            try db.execute(
                sql: """
                    ALTER TABLE item ADD COLUMN shared INTEGER NOT NULL DEFAULT 0;
                    UPDATE item SET shared = 1
                    WHERE dedup_key IN (SELECT dedup_key FROM item GROUP BY dedup_key HAVING COUNT(*) > 1);
                    ALTER TABLE feed ADD COLUMN visible_items INTEGER NOT NULL DEFAULT 0;
                    UPDATE feed SET visible_items = (SELECT COUNT(*) FROM item WHERE item.feed = feed.name AND staged = 0);
                    DROP INDEX item_stream_order;
                    CREATE INDEX item_stream_order ON item(sort_key DESC, feed, feed_position, id, shared) WHERE staged = 0;
                    CREATE INDEX item_shared ON item(dedup_key, feed) WHERE shared = 1 AND staged = 0;
                    """)
        }
        // A number every change a read can see moves (a feed's commit, undated items placed, feeds
        // deleted or pruned), in any process writing the store: `feedagg serve` keeps the pages readers
        // poll most rendered while it stays the same, and answers a matching `If-None-Match` from it.
        migrator.registerMigration("v6") { db in
            try db.execute(
                sql: """
                    CREATE TABLE store_change (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
                    INSERT INTO store_change (id, version) VALUES (1, 0);
                    """)
        }
        // Search (issue 28): the full-text index of titles, summaries and authors (``SearchIndex``).
        migrator.registerMigration("v7") { db in
            try db.execute(sql: SearchIndex.migration)
        }
        // Broad searches count fast: the shared rows' own full-text index (``SearchIndex/sharedMigration``).
        migrator.registerMigration("v8") { db in
            try db.execute(sql: SearchIndex.sharedMigration)
        }
        return migrator
    }

    /// Moves the store's change number (schema `v6`), inside the write transaction that changed
    /// what a read can see.
    static func noteChange(in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE store_change SET version = version + 1 WHERE id = 1").execute()
    }

    /// The store's change number (schema `v6`), as the read or write `db` sees it.
    static func changeVersion(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM store_change WHERE id = 1")) ?? 0
    }
}
