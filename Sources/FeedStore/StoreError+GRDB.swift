import FeedStorage
import GRDB

extension StoreError {
    /// Maps any error thrown while `operation` ran on the store at `path` to a ``StoreError``.
    static func wrapping(_ error: any Error, path: String, operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            let detail = error.message ?? "\(error.resultCode)"
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return StoreError(kind: .locked, path: path, operation: operation, detail: "SQLite: \(detail)")
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return StoreError(kind: .damaged, path: path, operation: operation, detail: "SQLite: \(detail)")
            default:
                return StoreError(
                    kind: .database, path: path, operation: operation,
                    detail: "SQLite error \(error.extendedResultCode.rawValue): \(detail)")
            }
        }
        return StoreError(kind: .database, path: path, operation: operation, detail: String(describing: error))
    }
}
