// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedStorage
import Synchronization

/// What `sslmode=allow` found, per server, in this process: whether the server refused a
/// plaintext connection, so that connections after the first (the store's pool, the workers'
/// coordination pool) use TLS at once.
enum AllowedTLS {
    private static let refusedPlaintext = Mutex<Set<String>>([])

    /// The key of `url`'s server and login.
    private static func key(_ url: PostgresURL) -> String { "\(url.user)@\(url.host ?? ""):\(url.port)/\(url.database)" }

    /// Records that the server of `url` refused `url`'s login without TLS.
    static func recordRefusal(_ url: PostgresURL) {
        _ = refusedPlaintext.withLock { $0.insert(key(url)) }
    }

    /// Whether connections to `url` in `allow` mode go straight to TLS.
    static func needsTLS(_ url: PostgresURL) -> Bool {
        refusedPlaintext.withLock { $0.contains(key(url)) }
    }
}

#endif
