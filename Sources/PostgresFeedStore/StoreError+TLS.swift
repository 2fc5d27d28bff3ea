// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedStorage
import PostgresNIO

extension StoreError {
    /// A ``StoreError/Kind/cannotOpen`` naming host:port and the `sslmode` when `error` is a TLS
    /// failure (the server offers no TLS, its certificate is not trusted or names another host, a
    /// certificate file cannot be loaded); `nil` for any other error.
    static func tls(_ error: any Error, url: PostgresURL, operation: String) -> StoreError? {
        guard url.socketPath == nil, url.tls.mode != .disable else { return nil }
        let server = "\(url.host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? ""):\(url.port)"
        let mode = "sslmode=\(url.tls.mode.rawValue)"
        func failure(_ detail: String) -> StoreError {
            StoreError(kind: .cannotOpen, path: url.redacted, operation: operation, detail: detail)
        }
        if let error = error as? PSQLError, error.code == .sslUnsupported {
            return failure(
                "the PostgreSQL server at \(server) offers no TLS, and \(mode) needs it "
                    + "(turn on ssl in its postgresql.conf; sslmode=prefer or disable send the password and data in clear)")
        }
        guard let cause = Self.tlsCause(of: error) else { return nil }
        return failure("TLS with the PostgreSQL server at \(server) failed (\(mode)): \(Self.describeTLS(cause, host: url.host ?? ""))")
    }

    /// The swift-nio-ssl error in `error` or its PostgresNIO wrapping.
    private static func tlsCause(of error: any Error) -> (any Error)? {
        var candidate: (any Error)? = error
        for _ in 0..<3 {
            guard let current = candidate else { return nil }
            if current is NIOSSLError || current is NIOSSLExtraError { return current }
            candidate = (current as? PSQLError)?.underlying
        }
        return nil
    }

    /// What went wrong in TLS, in words.
    private static func describeTLS(_ error: any Error, host: String) -> String {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "the server's certificate does not name \(host) (sslmode=verify-full checks the host name; "
                + "connect by a name the certificate lists)"
        }
        if let error = error as? NIOSSLError {
            switch error {
            case .handshakeFailed(let cause):
                let text = "\(cause)"
                if text.contains("CERTIFICATE_VERIFY_FAILED") {
                    return "the server's certificate is not signed by the root certificate (sslrootcert): \(text)"
                }
                return "the handshake failed: \(text)"
            case .failedToLoadCertificate: return "a certificate file (sslrootcert or sslcert) cannot be loaded"
            case .failedToLoadPrivateKey: return "the client key file (sslkey) cannot be loaded"
            case .noSuchFilesystemObject: return "a certificate or key file does not exist"
            default: return "\(error)"
            }
        }
        return "\(error)"
    }
}

#endif
