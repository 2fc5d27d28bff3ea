import Foundation
import GRDB
import GRDBSQLite

/// The current row of a stepped statement, read by column index straight from SQLite.
///
/// A served page decodes 50 items of eleven columns; through GRDB's `Row` (a copy of every value,
/// then a generic decode per column) that was about 10 % of the page's CPU. Reading the columns
/// of the statement in place costs a C call each.
struct StatementColumns {
    let statement: SQLiteStatement

    init(_ statement: Statement) {
        self.statement = statement.sqliteStatement
    }

    func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(statement, index) == SQLITE_NULL
    }

    /// The column's text (a value of another type as SQLite converts it); `nil` when NULL.
    func text(_ index: Int32) -> String? {
        guard !isNull(index), let bytes = sqlite3_column_text(statement, index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func double(_ index: Int32) -> Double? {
        isNull(index) ? nil : sqlite3_column_double(statement, index)
    }

    func int64(_ index: Int32) -> Int64? {
        isNull(index) ? nil : sqlite3_column_int64(statement, index)
    }

    /// The column's bytes; `nil` when NULL.
    func blob(_ index: Int32) -> Data? {
        guard !isNull(index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}
