// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

public import FeedStorage
public import PostgresNIO

extension PostgresURL {
    /// PostgresNIO's configuration of one connection to the database this URL names: its Unix
    /// socket (never TLS, as with libpq), or TCP with the URL's ``PostgresURL/tls``; the URL's login.
    ///
    /// - Parameter allowTLS: For `sslmode=allow`, which is tried first without TLS: `true` for the
    ///   second try, with TLS (see ``PostgresFeedStore/open(url:now:keepRaw:connectTimeout:claimTimeout:readTimeout:)``).
    /// - Throws: ``PostgresTLSError`` when a certificate or key file cannot be loaded, or
    ///   swift-nio-ssl's error when its context cannot be made.
    public func connectionConfiguration(allowTLS: Bool = false) throws -> PostgresConnection.Configuration {
        if let socket = socketPath {
            return .init(unixSocketPath: socket, username: user, password: password, database: database)
        }
        let mode: PostgresConnection.Configuration.TLS
        switch tls.mode {
        case .disable: mode = .disable
        case .allow: mode = allowTLS ? .require(try NIOSSLContext(configuration: tls.tlsConfiguration())) : .disable
        case .prefer: mode = .prefer(try NIOSSLContext(configuration: tls.tlsConfiguration()))
        case .require, .verifyCA, .verifyFull: mode = .require(try NIOSSLContext(configuration: tls.tlsConfiguration()))
        }
        return .init(host: host ?? "localhost", port: port, username: user, password: password, database: database, tls: mode)
    }

    /// PostgresNIO's configuration of a `PostgresClient` pool of at most `maximumConnections`
    /// connections to the same server, with the same login and TLS, as ``connectionConfiguration(allowTLS:)``.
    ///
    /// `sslmode=allow` uses TLS when this process's store, opened first, found that the server
    /// refuses plaintext (``PostgresFeedStore/open(url:now:keepRaw:connectTimeout:claimTimeout:readTimeout:)``),
    /// else plaintext: PostgresNIO's pool has no "plaintext, then TLS".
    ///
    /// - Throws: ``PostgresTLSError`` when a certificate or key file cannot be loaded.
    public func clientConfiguration(maximumConnections: Int) throws(PostgresTLSError) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socket = socketPath {
            configuration = .init(unixSocketPath: socket, username: user, password: password, database: database)
        } else {
            let mode: PostgresClient.Configuration.TLS
            switch tls.mode {
            case .disable: mode = .disable
            case .allow: mode = AllowedTLS.needsTLS(self) ? .require(try tls.tlsConfiguration()) : .disable
            case .prefer: mode = .prefer(try tls.tlsConfiguration())
            case .require, .verifyCA, .verifyFull: mode = .require(try tls.tlsConfiguration())
            }
            configuration = .init(
                host: host ?? "localhost", port: port, username: user, password: password, database: database, tls: mode)
        }
        configuration.options.maximumConnections = max(1, maximumConnections)
        return configuration
    }
}

#endif
