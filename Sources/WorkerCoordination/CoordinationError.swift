// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import PostgresNIO

/// A coordination step failed: which one, for which worker, and the database's error.
public struct CoordinationError: Error, Sendable, CustomStringConvertible {
    /// What was being done (`leasing due feeds`, `migrating to version 1`).
    public var operation: String
    /// The worker doing it (`-` for a migration).
    public var worker: String
    /// The server's message and SQLSTATE, or the client's error kind. Never the connection string,
    /// a password or a query's bound values.
    public var cause: String

    init(_ operation: String, worker: WorkerID?, cause: any Error) {
        self.operation = operation
        self.worker = worker?.rawValue ?? "-"
        self.cause = Self.describe(cause)
    }

    public var description: String { "worker coordination: \(operation) (worker \(worker)): \(cause)" }

    /// PostgresNIO's `PSQLError` describes itself generically on purpose (its debug description
    /// holds the query and its binds): take the server's message, or the error code.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return message + state
        }
        return "\(error.code)"
    }
}

#endif
