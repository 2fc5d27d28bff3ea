// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import Foundation
import PostgresNIO

extension WorkerCoordinator {
    /// The PostgreSQL notification channel ``makeDue(_:)`` notifies on commit.
    static let dueChannel = "feedagg_due"

    /// Calls `wake` each time any worker makes feeds due (``makeDue(_:)``, a refresh), so every
    /// worker leases at once instead of at its next poll: PostgreSQL's `LISTEN`, on one connection
    /// of the pool held for as long as this runs.
    ///
    /// Returns when the calling task is cancelled (the channel is unlistened and the connection
    /// goes back to the pool); throws when the connection fails, and the caller may listen again.
    public func listenForDueFeeds(_ wake: @Sendable () -> Void) async throws(CoordinationError) {
        try await attempt("listening for feeds made due") {
            try await client.withConnection { connection in
                try await connection.listen(on: Self.dueChannel) { notifications in
                    for try await _ in notifications { wake() }
                }
            }
        }
    }
}

#endif
