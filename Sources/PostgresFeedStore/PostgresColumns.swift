// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import PostgresNIO

/// Reads a row's columns in order, each through a call the compiler specialises for its type.
///
/// A tuple decode (`row.decode((String, Int64, …).self)`) goes through parameter packs: the Swift
/// runtime looks up generic metadata for every column of every row (about a twentieth of a served
/// page's CPU on PostgreSQL, in `_swift_getGenericMetadata` and its caches).
struct PostgresColumns {
    /// A row had fewer columns than its reader asked for: the statement and its reader disagree.
    struct Missing: Error, CustomStringConvertible {
        let index: Int
        var description: String { "the row has no column \(index + 1)" }
    }

    private var cells: PostgresRow.Iterator
    private var index = 0

    init(_ row: PostgresRow) {
        cells = row.makeIterator()
    }

    /// The next column, decoded as `type`.
    mutating func next<T: PostgresDecodable>(_ type: T.Type = T.self) throws -> T {
        guard let cell = cells.next() else { throw Missing(index: index) }
        index += 1
        return try cell.decode(T.self)
    }
}

#endif
