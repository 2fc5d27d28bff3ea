import Foundation

/// How a connection to a PostgreSQL store uses TLS, with libpq's parameters and meaning
/// (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`; docs/store.md, "TLS").
///
/// Given in the URL's query (`?sslmode=verify-full&sslrootcert=/path/root.crt`), else by feeds.yaml's
/// `settings: store_tls:` (added to the URL's query by the application, so the URL's own parameters
/// win), else by libpq's environment variables `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT` and `PGSSLKEY`,
/// else libpq's defaults: `prefer`, and the files under `~/.postgresql/` when they exist.
public struct PostgresTLS: Sendable, Hashable {
    /// libpq's `sslmode`.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Plaintext only.
        case disable
        /// Plaintext first; TLS (unverified) when the server refuses a plaintext connection.
        case allow
        /// TLS (unverified) when the server offers it, else plaintext. libpq's default.
        case prefer
        /// TLS, or no connection; the certificate is checked as with `verify-ca` only when a root
        /// certificate is given (or `~/.postgresql/root.crt` exists).
        case require
        /// TLS, the server's certificate signed by the root certificate.
        case verifyCA = "verify-ca"
        /// `verify-ca`, and the certificate names the host connected to.
        case verifyFull = "verify-full"

        /// Whether a connection in this mode is never made without TLS.
        public var requiresTLS: Bool { self == .require || self == .verifyCA || self == .verifyFull }
    }

    /// Where the certificates that sign the server's come from (`sslrootcert`).
    public enum RootCertificate: Sendable, Hashable {
        /// A PEM file of one or more certificates.
        case file(String)
        /// The system's trust store (`sslrootcert=system`; forces `verify-full`, as libpq 16 does).
        case system
    }

    /// The mode.
    public var mode: Mode
    /// The root certificates; `nil`: `~/.postgresql/root.crt` when it exists (see ``rootCertificateIsDefault``).
    public var rootCertificate: RootCertificate?
    /// Whether ``rootCertificate`` is libpq's default file rather than one given: a missing default
    /// file only matters to `verify-ca` and `verify-full`.
    public var rootCertificateIsDefault: Bool
    /// The client certificate's PEM file (`sslcert`), sent when the server asks for one.
    public var clientCertificate: String?
    /// The client certificate's private key's PEM file (`sslkey`).
    public var clientKey: String?
    /// Whether the client certificate and key are libpq's defaults (`~/.postgresql/postgresql.crt`
    /// and `.key`), used only when the certificate file exists.
    public var clientCertificateIsDefault: Bool

    /// The parameter names this type reads from a URL's query (and from `store_tls:`).
    public static let parameterNames = ["sslmode", "sslrootcert", "sslcert", "sslkey"]

    /// Settings from `parameters` (the URL's query), then `environment`'s `PGSSL*` variables, then
    /// libpq's defaults; `~/` in paths is `$HOME`.
    ///
    /// - Throws: a message (no URL in it) when `sslmode` is not one of libpq's, or when
    ///   `sslrootcert=system` comes with a mode weaker than `verify-full`.
    public init(parameters: [String: String], environment: [String: String]) throws(PostgresTLS.Invalid) {
        func value(_ name: String, _ variable: String) -> String? {
            let given = parameters[name] ?? environment[variable]
            return given?.isEmpty == false ? given : nil
        }
        let home = environment["HOME"] ?? ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        func path(_ text: String) -> String { text.hasPrefix("~/") ? home + text.dropFirst(1) : text }
        let modeText = value("sslmode", "PGSSLMODE")
        var mode = Mode.prefer
        if let modeText {
            guard let parsed = Mode(rawValue: modeText) else {
                throw Invalid(
                    "sslmode '\(modeText)' is not one of " + Mode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            mode = parsed
        }
        let root = value("sslrootcert", "PGSSLROOTCERT")
        if root == "system" {
            // libpq 16: the system's roots vouch for any name, so only verify-full makes sense.
            if modeText == nil { mode = .verifyFull }
            guard mode == .verifyFull else {
                throw Invalid("sslrootcert=system needs sslmode=verify-full (sslmode is \(mode.rawValue))")
            }
            rootCertificate = .system
        } else {
            rootCertificate = .file(path(root ?? "~/.postgresql/root.crt"))
        }
        rootCertificateIsDefault = root == nil
        let certificate = value("sslcert", "PGSSLCERT")
        let key = value("sslkey", "PGSSLKEY")
        clientCertificate = path(certificate ?? "~/.postgresql/postgresql.crt")
        clientKey = path(key ?? "~/.postgresql/postgresql.key")
        clientCertificateIsDefault = certificate == nil
        self.mode = mode
    }

    /// Settings with nothing but `mode` given (no root certificate, no client certificate).
    public init(mode: Mode) {
        self.mode = mode
        rootCertificate = nil
        rootCertificateIsDefault = true
        clientCertificate = nil
        clientKey = nil
        clientCertificateIsDefault = true
    }

    /// A TLS parameter that is not valid; the message names the parameter, never the URL.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        /// What is wrong.
        public var description: String
        init(_ description: String) { self.description = description }
    }
}

extension PostgresURL {
    /// `text` with each of `parameters` (feeds.yaml's `store_tls`) added to its query, unless the
    /// URL gives that parameter itself (the URL wins); values percent-encoded, in name order.
    public static func withTLSParameters(_ parameters: [String: String], in text: String) -> String {
        let given = Set(
            split(text).query.split(separator: "&").compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")
        let added = parameters.keys.sorted().filter { PostgresTLS.parameterNames.contains($0) && !given.contains($0) }
            .map { "\($0)=\(parameters[$0]?.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
        guard !added.isEmpty else { return text }
        let separator = split(text).query.isEmpty ? (text.hasSuffix("?") ? "" : "?") : "&"
        return text + separator + added.joined(separator: "&")
    }
}
