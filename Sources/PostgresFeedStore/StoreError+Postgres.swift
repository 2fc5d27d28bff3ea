// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedStorage
import PostgresNIO

extension StoreError {
    /// Maps an error PostgresNIO threw while `operation` ran on the store at `url` to a ``StoreError``
    /// naming the redacted URL (never the password): unreachable servers and refused logins are
    /// ``StoreError/Kind/cannotOpen`` naming host:port/database, lock timeouts ``StoreError/Kind/locked``.
    static func postgres(_ error: any Error, url: PostgresURL, operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let failure = tls(error, url: url, operation: operation) { return failure }
        let shown = url.redacted
        guard let error = error as? PSQLError else {
            return StoreError(kind: .database, path: shown, operation: operation, detail: PostgresURL.redact("\(error)"))
        }
        if let info = error.serverInfo {
            let state = info[.sqlState] ?? ""
            let message = PostgresURL.redact(info[.message] ?? "server error")
            switch state {
            case "28000", "28P01", "3D000":
                // Invalid authorisation, wrong password, no such database.
                return StoreError(
                    kind: .cannotOpen, path: shown, operation: operation,
                    detail: "PostgreSQL at \(url.endpoint) refused: \(message)")
            case "55P03", "40P01":
                return StoreError(kind: .locked, path: shown, operation: operation, detail: "PostgreSQL: \(message)")
            default:
                return StoreError(
                    kind: .database, path: shown, operation: operation, detail: "PostgreSQL error \(state): \(message)")
            }
        }
        switch error.code {
        case .connectionError, .serverClosedConnection, .sslUnsupported, .authMechanismRequiresPassword,
            .unsupportedAuthMechanism, .saslError, .poolClosed:
            let cause = error.underlying.map { PostgresURL.redact("\($0)") } ?? "\(error.code)"
            return StoreError(
                kind: .cannotOpen, path: shown, operation: operation,
                detail: "cannot connect to PostgreSQL at \(url.endpoint): \(cause)")
        default:
            let cause = error.underlying.map { PostgresURL.redact("\($0)") } ?? ""
            return StoreError(
                kind: .database, path: shown, operation: operation,
                detail: "PostgreSQL: \(error.code)\(cause.isEmpty ? "" : ": \(cause)")")
        }
    }
}

#endif
