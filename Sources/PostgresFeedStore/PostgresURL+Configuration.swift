// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

public import FeedStorage
public import PostgresNIO

extension PostgresURL {
    /// PostgresNIO's configuration of one connection to the database this URL names: its Unix
    /// socket, or TCP without TLS; the URL's login.
    public var connectionConfiguration: PostgresConnection.Configuration {
        if let socket = socketPath {
            return .init(unixSocketPath: socket, username: user, password: password, database: database)
        }
        return .init(
            host: host ?? "localhost", port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// PostgresNIO's configuration of a `PostgresClient` pool of at most `maximumConnections`
    /// connections to the same server, with the same login, as ``connectionConfiguration``.
    public func clientConfiguration(maximumConnections: Int) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socket = socketPath {
            configuration = .init(unixSocketPath: socket, username: user, password: password, database: database)
        } else {
            configuration = .init(
                host: host ?? "localhost", port: port, username: user, password: password, database: database,
                tls: .disable)
        }
        configuration.options.maximumConnections = max(1, maximumConnections)
        return configuration
    }
}

#endif
