// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import PostgresNIO
import Synchronization

/// Where the store's calls get a connection: the connection that opened the store (it migrated
/// the schema and learnt the link) when it is free, else PostgresNIO's pool.
///
/// A one-shot command (`show`, `feeds`, `validate`) then runs on the connection it already has:
/// before, its reads waited for the pool to open a second one, a TCP connection, a login and a
/// new server process with cold caches, which was a fifth of a `show`'s time above `--help`. A
/// server or a pull, with calls at once, uses the pool beside it as before (one connection more).
/// A kept connection found closed (the server restarted, say) is dropped, and the pool, which
/// reconnects, serves from then on.
final class PostgresConnections: Sendable {
    let pool: PostgresClient
    private let kept: Mutex<PostgresConnection?>

    init(pool: PostgresClient, first: PostgresConnection?) {
        self.pool = pool
        kept = Mutex(first)
    }

    /// Runs `body` on a connection no other call uses meanwhile.
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        if let connection = kept.withLock({ $0.take() }), !connection.isClosed {
            defer { giveBack(connection) }
            return try await body(connection)
        }
        return try await pool.withConnection(body)
    }

    /// Keeps `connection` for the next call, unless it closed meanwhile.
    private func giveBack(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        kept.withLock { $0 = connection }
    }

    /// Closes the kept connection (the pool ends with its `run()` task); later calls get the pool.
    func closeKept() {
        Self.close(kept.withLock { $0.take() })
    }

    deinit {
        Self.close(kept.withLock { $0.take() })
    }

    /// Closes `connection` without waiting, holding it until it has closed (PostgresNIO expects a
    /// connection closed before it is released).
    static func close(_ connection: PostgresConnection?) {
        guard let connection, !connection.isClosed else { return }
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }
}

#endif
