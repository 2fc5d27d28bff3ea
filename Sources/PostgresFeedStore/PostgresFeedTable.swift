// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import PostgresNIO
import Synchronization

/// What a stream read needs of the `feed` table — every stored feed's source type and visible
/// count — with the change number, kept between reads until the number moves.
///
/// Every read runs one statement for it in its snapshot: the change number, and the feed rows only
/// when the number is not the one kept (`LEFT JOIN … ON version <> $1`). Unchanged, that is one
/// short row instead of a row per feed to send and decode (a fifth of the driver's work for a
/// page at 100 feeds). A claim creates a feed row without moving the number; such a feed has no
/// visible item until its pull finishes, which moves it, so a kept table never hides an entry.
final class PostgresFeedTable: Sendable {
    /// The table at one change number.
    struct Snapshot: Sendable {
        var version: Int64
        var sourceByFeed: [String: String]
        var visibleByFeed: [String: Int64]
    }

    private let kept = Mutex<Snapshot?>(nil)

    init() {}

    /// The table kept from the last read, if any (possibly older than the store).
    var current: Snapshot? { kept.withLock { $0 } }

    /// The table as `db`'s snapshot sees it.
    func read(_ db: PostgresConnection) async throws -> Snapshot {
        let known = kept.withLock { $0 }
        var snapshot = Snapshot(version: 0, sourceByFeed: [:], visibleByFeed: [:])
        for row in try await db.rows(
            """
            SELECT current.version, feed.name, feed.source, feed.visible_items
            FROM (SELECT COALESCE((SELECT version FROM store_change WHERE id = 1), 0)::bigint AS version) AS current
            LEFT JOIN feed ON current.version <> \(known?.version ?? -1)
            """)
        {
            let (version, name, source, visible) = try row.decode((Int64, String?, String?, Int64?).self)
            snapshot.version = version
            if let name, let source {
                snapshot.sourceByFeed[name] = source
                snapshot.visibleByFeed[name] = visible ?? 0
            }
        }
        if let known, known.version == snapshot.version { return known }
        // A read that began before the last change may come after it: only a newer table is kept.
        kept.withLock { kept in
            if (kept?.version ?? .min) < snapshot.version { kept = snapshot }
        }
        return snapshot
    }
}

#endif
