// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import Foundation
import PostgresNIO

extension PostgresSearchVector {
    /// Rows read and written at once by ``backfill(_:)``.
    static let backfillBatch = 5_000

    /// Writes the `tsvector` of every stored item and staged update that has none (schema `v4`),
    /// in batches walked by primary key, inside the migration's transaction.
    static func backfill(_ connection: PostgresConnection) async throws {
        for table in ["item", "staged_update"] {
            var after: (feed: String, id: String)?
            while true {
                var binds = PostgresBindings()
                var condition = ""
                if let after {
                    binds.append(after.feed)
                    binds.append(after.id)
                    condition = #"WHERE (feed, id) > ($1 COLLATE "C", $2 COLLATE "C")"#
                }
                binds.append(Int64(backfillBatch))
                let rows = try await connection.rows(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT feed, id, title, summary, author_name FROM \(table) \(condition)
                            ORDER BY feed, id LIMIT $\(binds.count)
                            """, binds: binds))
                guard !rows.isEmpty else { break }
                var feeds: [String] = []
                var ids: [String] = []
                var vectors: [String] = []
                for row in rows {
                    let (feed, id, title, summary, author) = try row.decode((String, String, String, String?, String?).self)
                    feeds.append(feed)
                    ids.append(id)
                    vectors.append(literal(title: title, summary: summary, author: author))
                }
                try await connection.exec(
                    PostgresQuery(
                        unsafeSQL: """
                            UPDATE \(table) SET search = u.search
                            FROM unnest($1::text[], $2::text[], $3::tsvector[]) AS u(feed, id, search)
                            WHERE \(table).feed = u.feed AND \(table).id = u.id
                            """,
                        binds: {
                            var binds = PostgresBindings()
                            binds.append(feeds)
                            binds.append(ids)
                            binds.append(vectors)
                            return binds
                        }()))
                guard rows.count == backfillBatch, let last = feeds.last, let lastID = ids.last else { break }
                after = (last, lastID)
            }
        }
    }
}

#endif
