// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

public import FeedStorage

/// How a store's connections reach PostgreSQL: over TLS or not, and what TLS verified. `feedagg
/// feeds` and `pull --verbose` print it (`postgres://feedagg@db:5432/feeds (TLS, verified: verify-full)`).
public struct PostgresLink: Sendable, Hashable, CustomStringConvertible {
    /// The URL without its password.
    public var location: String
    /// The `sslmode` in force.
    public var mode: PostgresTLS.Mode
    /// Whether the connection is a Unix socket (never TLS).
    public var isSocket: Bool
    /// Whether the connection is encrypted.
    public var encrypted: Bool
    /// What TLS checked of the server's certificate (``PostgresTLSVerification/none`` without TLS).
    public var verification: PostgresTLSVerification

    /// The link of a connection made to `url`, encrypted or not.
    public init(url: PostgresURL, encrypted: Bool) {
        location = url.redacted
        mode = url.tls.mode
        isSocket = url.socketPath != nil
        self.encrypted = encrypted && !isSocket
        verification = self.encrypted ? url.tls.verification : .none
    }

    /// `TLS, verified: verify-full`, `TLS, not verified: prefer`, `not encrypted: disable`, …
    public var security: String {
        if isSocket { return "Unix socket, no TLS" }
        guard encrypted else {
            switch mode {
            case .prefer: return "not encrypted: prefer, and the server offers no TLS"
            case .allow: return "not encrypted: allow, and the server accepts plaintext"
            default: return "not encrypted: \(mode.rawValue)"
            }
        }
        switch verification {
        case .chainAndHostName: return "TLS, verified: \(mode.rawValue)"
        case .chain: return "TLS, verified (the certificate's chain, not its host name): \(mode.rawValue)"
        case .none: return "TLS, not verified: \(mode.rawValue)"
        }
    }

    /// `<location> (<security>)`.
    public var description: String { "\(location) (\(security))" }
}

#endif
