import GRDB

/// The versioned schema. Never edit a registered migration: add the next one (`v2`…).
enum Schema {
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
                        title TEXT NOT NULL,
                        summary TEXT,
                        url TEXT,
                        author_name TEXT,
                        author_url TEXT,
                        author_avatar TEXT,
                        image_url TEXT,
                        published REAL,
                        updated REAL,
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
                        url TEXT PRIMARY KEY NOT NULL,
                        feed TEXT NOT NULL REFERENCES feed(name) ON DELETE CASCADE,
                        etag TEXT,
                        last_modified TEXT,
                        status INTEGER NOT NULL,
                        headers TEXT NOT NULL,
                        body BLOB NOT NULL,
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
                        url TEXT PRIMARY KEY NOT NULL,
                        feed TEXT NOT NULL REFERENCES feed(name) ON DELETE CASCADE,
                        etag TEXT,
                        last_modified TEXT,
                        status INTEGER NOT NULL,
                        headers TEXT NOT NULL,
                        body BLOB NOT NULL,
                        page TEXT,
                        stored_at REAL NOT NULL
                    );
                    CREATE INDEX staged_cache_feed ON staged_cache(feed);
                    CREATE TABLE staged_update (
                        feed TEXT NOT NULL REFERENCES feed(name) ON DELETE CASCADE,
                        id TEXT NOT NULL,
                        title TEXT NOT NULL,
                        summary TEXT,
                        url TEXT,
                        author_name TEXT,
                        author_url TEXT,
                        author_avatar TEXT,
                        image_url TEXT,
                        published REAL,
                        updated REAL,
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
        return migrator
    }
}
