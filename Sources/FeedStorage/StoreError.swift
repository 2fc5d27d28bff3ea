import Foundation

/// Why a store operation failed, with the store's location (a file path, or a PostgreSQL URL with
/// its password redacted) and what was being done.
///
/// Match on ``kind`` (`error.kind == .locked`); the description is one line meant for a user.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// The coarse kind of failure; new kinds may be added.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// A short name of the kind (`locked`, `cannot open`, …).
        public let description: String

        private init(_ description: String) { self.description = description }

        /// Another connection (usually another feedagg process) held the write lock for longer than the busy timeout.
        public static let locked = Kind("locked")
        /// The file or its directory could not be created or opened, or the PostgreSQL server could not be reached.
        public static let cannotOpen = Kind("cannot open")
        /// The file was migrated by a newer feedagg whose schema this one does not know.
        public static let schemaTooNew = Kind("schema too new")
        /// The file is not a database or is corrupt.
        public static let damaged = Kind("damaged")
        /// A stream cursor could not be decoded.
        public static let invalidCursor = Kind("invalid cursor")
        /// Neither `XDG_DATA_HOME` nor `HOME` says where the default store lives.
        public static let noDefaultLocation = Kind("no default location")
        /// Any other database failure (SQLite or PostgreSQL).
        public static let database = Kind("database error")
        /// Another process took over a feed's pull from this one (presumed dead).
        public static let claimLost = Kind("claim lost")
        /// The file exists but is not a feedagg store (not SQLite, or another program's database).
        public static let notAStore = Kind("not a store")
    }

    /// The kind of failure.
    public var kind: Kind
    /// The store file's path or the redacted PostgreSQL URL (empty when no store is involved).
    public var path: String
    /// What the store was doing, e.g. `commit feed 'repos'`.
    public var operation: String
    /// The underlying cause, e.g. SQLite's message.
    public var detail: String

    /// Creates an error.
    public init(kind: Kind, path: String, operation: String, detail: String) {
        self.kind = kind
        self.path = path
        self.operation = operation
        self.detail = detail
    }

    /// One line for a user.
    public var description: String {
        switch kind {
        case .locked:
            return "the store \(path) is locked by another feedagg process (\(operation): \(detail))"
        case .cannotOpen:
            return "cannot open the store \(path): \(detail)"
        case .schemaTooNew:
            return "the store \(path) was written by a newer feedagg (\(detail)); upgrade feedagg or use another store"
        case .damaged:
            return "the store \(path) is damaged (\(operation)): \(detail)"
        case .invalidCursor:
            return "invalid stream cursor: \(detail)"
        case .noDefaultLocation:
            return "no default store location: \(detail)"
        case .notAStore:
            return "\(path) is not a feedagg store (\(detail)); pass the store of an earlier pull with --db, or a new file"
        default:
            return "store \(path): \(operation) failed: \(detail)"
        }
    }
}
