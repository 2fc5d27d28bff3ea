// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedStorage
import PostgresNIO

extension PostgresFeedStore {
    /// Connects once to `url`'s database (a refused connection or login is an error now, not a
    /// pool retrying), migrates its schema, and returns how the connection reaches the server and
    /// the connection, which the store keeps (``PostgresConnections``).
    ///
    /// `sslmode=allow` connects without TLS first and, when the server answers that with an error
    /// (pg_hba.conf has only `hostssl` lines for this login, say), again with TLS, as libpq does;
    /// the process's later connections to that server then use TLS at once (``AllowedTLS``).
    static func connectFirst(
        url: PostgresURL, connectTimeout: Duration, bridge: PostgresBridge
    ) throws -> (PostgresLink, PostgresConnection) {
        do {
            if url.socketPath == nil && url.tls.mode != .disable {
                try url.tls.checkFiles()
                _ = try url.tls.tlsConfiguration()
            }
        } catch {
            throw StoreError(
                kind: .cannotOpen, path: url.redacted, operation: "open",
                detail: "cannot use TLS to PostgreSQL at \(url.endpoint) (sslmode=\(url.tls.mode.rawValue)): \(error)")
        }
        let timeout = TimeAmount.nanoseconds(Int64(connectTimeout.seconds * 1e9))
        @Sendable func connect(allowTLS: Bool) async throws -> PostgresConnection {
            var configuration = try url.connectionConfiguration(allowTLS: allowTLS)
            configuration.options.connectTimeout = timeout
            return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Self.logger)
        }
        let tryAllowedTLS = url.tls.mode == .allow && url.socketPath == nil
        let (encrypted, connection) = try bridge.wait {
            let connection: PostgresConnection
            do {
                connection = try await connect(allowTLS: tryAllowedTLS && AllowedTLS.needsTLS(url))
            } catch let error as PSQLError where tryAllowedTLS && error.serverInfo != nil {
                connection = try await connect(allowTLS: true)
                AllowedTLS.recordRefusal(url)
            }
            do {
                try await PostgresSchema.migrate(connection)
                return (try await isEncrypted(connection, url: url), connection)
            } catch {
                try? await connection.close()
                throw error
            }
        }
        return (PostgresLink(url: url, encrypted: encrypted), connection)
    }

    /// Whether `connection` is encrypted, as the server's `pg_stat_ssl` says (what `feeds` and
    /// `--verbose` print: the server's word, not what the mode should have given).
    private static func isEncrypted(_ connection: PostgresConnection, url: PostgresURL) async throws -> Bool {
        if url.socketPath != nil { return false }
        let rows = try await connection.rows("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        return try rows.first?.decode(Bool.self) ?? false
    }
}

#endif
