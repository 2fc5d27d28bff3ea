// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

public import FeedStorage
public import PostgresNIO

extension WorkerCoordinator {
    /// A `PostgresClient` configuration for the database `url` names (TCP without TLS, or its Unix
    /// socket), with at most `connections` connections: the same server and login as the store's.
    public static func clientConfiguration(_ url: PostgresURL, connections: Int = 4) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socket = url.socketPath {
            configuration = .init(unixSocketPath: socket, username: url.user, password: url.password, database: url.database)
        } else {
            configuration = .init(
                host: url.host ?? "localhost", port: url.port, username: url.user, password: url.password,
                database: url.database, tls: .disable)
        }
        configuration.options.maximumConnections = max(1, connections)
        return configuration
    }
}

#endif
