// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

public import FeedStorage
import Foundation
public import PostgresNIO

/// What TLS checks of the server's certificate.
public enum PostgresTLSVerification: Sendable, Hashable {
    /// Nothing: the link is encrypted, but anyone in the middle can pose as the server.
    case none
    /// The certificate chains to the root certificate (`verify-ca`; `require` with a root certificate).
    case chain
    /// The chain, and the certificate names the host connected to (`verify-full`).
    case chainAndHostName
}

extension PostgresTLS {
    /// What TLS checks, as libpq decides it: `verify-full` the chain and the host name, `verify-ca`
    /// the chain; `allow`, `prefer` and `require` the chain when a root certificate is given or
    /// libpq's default `~/.postgresql/root.crt` exists (libpq loads it then and verifies), else nothing.
    public var verification: PostgresTLSVerification {
        switch mode {
        case .disable: .none
        case .verifyFull: .chainAndHostName
        case .verifyCA: .chain
        case .allow, .prefer, .require: usesRootCertificate ? .chain : .none
        }
    }

    /// Whether the root certificate takes part: the system's, a given file, or the default file
    /// when it exists (always for the `verify-` modes, which fail without it).
    var usesRootCertificate: Bool {
        switch rootCertificate {
        case .system: true
        case .file(let path):
            !rootCertificateIsDefault || mode == .verifyCA || mode == .verifyFull
                || FileManager.default.fileExists(atPath: path)
        case nil: false
        }
    }

    /// The client certificate and key sent when the server asks: the given ones, or libpq's
    /// defaults when the certificate file exists.
    var clientCertificatePair: (certificate: String, key: String)? {
        guard let certificate = clientCertificate, let key = clientKey else { return nil }
        if clientCertificateIsDefault && !FileManager.default.fileExists(atPath: certificate) { return nil }
        return (certificate, key)
    }

    /// swift-nio-ssl's configuration of a TLS attempt with these settings, its certificate and key
    /// files read (PEM; a key also DER), as libpq reads them whatever their names end with.
    ///
    /// - Throws: ``PostgresTLSError`` naming the file that cannot be loaded and its parameter.
    public func tlsConfiguration() throws(PostgresTLSError) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch verification {
        case .none: configuration.certificateVerification = .none
        case .chain: configuration.certificateVerification = .noHostnameVerification
        case .chainAndHostName: configuration.certificateVerification = .fullVerification
        }
        func load<T>(_ path: String, _ parameter: String, _ body: () throws -> T) throws(PostgresTLSError) -> T {
            do {
                return try body()
            } catch {
                throw PostgresTLSError("\(parameter) \(path) cannot be loaded: \(error)")
            }
        }
        switch rootCertificate {
        case .system: configuration.trustRoots = .default
        case .file(let path) where usesRootCertificate:
            configuration.trustRoots = .certificates(
                try load(path, "the root certificate file (sslrootcert)") { try NIOSSLCertificate.fromPEMFile(path) })
        default: break
        }
        if let pair = clientCertificatePair {
            configuration.certificateChain = try load(pair.certificate, "the client certificate file (sslcert)") {
                try NIOSSLCertificate.fromPEMFile(pair.certificate).map { .certificate($0) }
            }
            configuration.privateKey = .privateKey(
                try load(pair.key, "the client key file (sslkey)") {
                    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: pair.key)))
                    let pem = String(decoding: bytes.prefix(4096), as: UTF8.self).contains("-----BEGIN")
                    return try NIOSSLPrivateKey(bytes: bytes, format: pem ? .pem : .der)
                })
        }
        return configuration
    }

    /// Checks that every file these settings use can be read, before any connection: a
    /// `verify-` mode needs its root certificate, and given files must exist (then
    /// ``tlsConfiguration()`` loads them).
    ///
    /// - Throws: ``PostgresTLSError`` naming the file and the parameter.
    public func checkFiles() throws(PostgresTLSError) {
        guard mode != .disable else { return }
        func check(_ path: String, _ parameter: String, _ advice: String) throws(PostgresTLSError) {
            guard !FileManager.default.isReadableFile(atPath: path) else { return }
            let state = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw PostgresTLSError("\(parameter) \(path) \(state)\(advice)")
        }
        if case .file(let path) = rootCertificate, usesRootCertificate {
            try check(
                path, "the root certificate file (sslrootcert)",
                rootCertificateIsDefault
                    ? ": sslmode=\(mode.rawValue) verifies the server's certificate against it; give sslrootcert=FILE, "
                        + "or sslrootcert=system for the system's trusted roots" : "")
        }
        if let pair = clientCertificatePair {
            try check(pair.certificate, "the client certificate file (sslcert)", "")
            try check(pair.key, "the client key file (sslkey)", "")
        }
    }
}

/// The TLS settings of a PostgreSQL URL cannot be used (a file they name is missing).
public struct PostgresTLSError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the file and the parameter; never the URL's password.
    public var description: String
    init(_ description: String) { self.description = description }
}

#endif
