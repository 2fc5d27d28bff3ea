import GRDB

extension FeedStore {
    /// The first column of every row of `sql`, as text (diagnostics and tests: `PRAGMA journal_mode`).
    func strings(sql: String) throws -> [String] {
        try reading("run \(sql)") { db in try String.fetchAll(db, sql: sql) }
    }

    /// Runs `sql` in a write transaction (tests: simulate what another version wrote).
    func execute(sql: String) throws {
        try writing("run \(sql)") { db in try db.execute(sql: sql) }
    }
}
