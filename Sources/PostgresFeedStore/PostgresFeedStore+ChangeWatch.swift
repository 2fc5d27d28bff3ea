// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedStorage
import PostgresNIO

extension PostgresFeedStore {
    /// How often a watch reads the change number on its own connection besides the
    /// announcements: a link that died without a word (a peer gone from the network) then fails
    /// within ``readTimeout`` of a check, and its follower stops trusting it (``ChangeNumberWatch``
    /// in `feedagg serve` expects one at least this often).
    public static let changeWatchCheckInterval: Duration = .seconds(2)
    /// The watch's connection's `application_name`.
    public static let changeWatchName = "feedagg change watch"

    /// Follows the change number through PostgreSQL's `LISTEN` on ``PostgresSchema/changeChannel``,
    /// on a connection of its own (not one of the pool's): every commit that moves the number
    /// announces the new one (``PostgresSchema/noteChange(in:)``), whichever process made it.
    ///
    /// Once listening, the number is read on the same connection and handed to `changed` (a
    /// commit that came before the `LISTEN` is in that read; one after it is announced), then every
    /// announced number, and the number read again every ``changeWatchCheckInterval``. Throws when
    /// the connection fails or a check does not answer within ``readTimeout``; ends (returning
    /// `true`) when the calling task is cancelled.
    public func watchChangeNumber(
        _ changed: @escaping @Sendable (_ number: Int64, _ announced: Bool) -> Void
    ) async throws -> Bool {
        let url = self.url
        // `sslmode=allow`: TLS when the store's first connection found plaintext refused.
        var configuration = try url.connectionConfiguration(allowTLS: AllowedTLS.needsTLS(url))
        configuration.options.connectTimeout = .nanoseconds(Int64(min(readTimeout.seconds, 86_400) * 1e9))
        // Named in pg_stat_activity, for whoever looks at the server's sessions.
        configuration.options.additionalStartupParameters.append(("application_name", Self.changeWatchName))
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: Self.logger)
        } catch {
            throw mapped(error, operation: "listen for changes")
        }
        let readTimeout = self.readTimeout
        do {
            try await withTaskCancellationHandler {
                try await connection.listen(on: PostgresSchema.changeChannel) { notifications in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await notification in notifications {
                                if let number = Int64(notification.payload) { changed(number, true) }
                            }
                        }
                        group.addTask {
                            while !Task.isCancelled {
                                changed(try await Self.checkedChangeNumber(on: connection, within: readTimeout), false)
                                try await Task.sleep(for: Self.changeWatchCheckInterval)
                            }
                        }
                        // Either ending ends the watch: the announcements stopped (the connection
                        // closed), a check failed, or the task was cancelled.
                        try await group.next()
                        group.cancelAll()
                    }
                }
            } onCancel: {
                Task { try? await connection.close() }
            }
        } catch {
            try? await connection.close()
            if Task.isCancelled { return true }
            throw mapped(error, operation: "listen for changes")
        }
        try? await connection.close()
        return true
    }

    /// The change number read on `connection`; after `timeout` without an answer (a link that
    /// died silently) the connection is closed, which fails the read.
    private static func checkedChangeNumber(on connection: PostgresConnection, within timeout: Duration) async throws
        -> Int64
    {
        try await withThrowingTaskGroup(of: Int64?.self) { group in
            group.addTask { try await changeVersion(on: connection) }
            group.addTask {
                try await Task.sleep(for: timeout)
                try? await connection.close()
                throw PostgresBridge.TimedOut(after: timeout)
            }
            defer { group.cancelAll() }
            guard let number = try await group.next() ?? nil else { throw PostgresBridge.TimedOut(after: timeout) }
            return number
        }
    }
}

#endif
