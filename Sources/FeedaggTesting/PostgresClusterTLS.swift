public import Foundation

/// The certificates of a test cluster started with TLS (``PostgresCluster/start(timeout:tls:)``),
/// made by `openssl` when the cluster starts, in its folder: a throwaway CA, the server's
/// certificate for `localhost` (its only name: connecting to `127.0.0.1` with `verify-full` fails),
/// and a client certificate for the role ``clientRole``, which `pg_hba.conf` lets in by that
/// certificate only (`hostssl … cert`).
///
/// The cluster also has the role ``tlsOnlyRole``, refused without TLS (`hostnossl … reject`), and
/// trusts every other role over TLS and without.
public struct PostgresClusterTLS: Sendable {
    /// The folder holding the files.
    public let folder: URL
    /// The CA's certificate (PEM): `sslrootcert`.
    public var caCertificate: String { folder.appendingPathComponent("ca.crt").path }
    /// The server's certificate (CN and only SAN `localhost`), signed by the CA.
    public var serverCertificate: String { folder.appendingPathComponent("server.crt").path }
    /// The server's private key.
    public var serverKey: String { folder.appendingPathComponent("server.key").path }
    /// The client certificate (CN ``clientRole``), signed by the CA: `sslcert`.
    public var clientCertificate: String { folder.appendingPathComponent("client.crt").path }
    /// The client certificate's private key: `sslkey`.
    public var clientKey: String { folder.appendingPathComponent("client.key").path }
    /// The login role that authenticates with the client certificate, and only over TLS.
    public static let clientRole = "feedagg_cert_client"
    /// A login role the server refuses without TLS (trusted over TLS): `sslmode=allow` retries it with TLS.
    public static let tlsOnlyRole = "feedagg_tls_only"

    /// Makes the CA, the server's and the client's keys and certificates in `folder` (created),
    /// with the `openssl` command.
    static func make(in folder: URL) async throws -> PostgresClusterTLS {
        let tls = PostgresClusterTLS(folder: folder)
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try Data("basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost\n".utf8)
                .write(to: folder.appendingPathComponent("server.ext"))
            try Data("basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n".utf8)
                .write(to: folder.appendingPathComponent("client.ext"))
        } catch {
            throw PostgresClusterError("cannot prepare \(folder.path) for the test certificates: \(error)")
        }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await openssl(
            ["req", "-x509"] + key + [
                "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=feedagg test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ], in: folder)
        for (name, commonName) in [("server", "localhost"), ("client", clientRole)] {
            try await openssl(["req"] + key + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(commonName)"], in: folder)
            try await openssl(
                [
                    "x509", "-req", "-in", "\(name).csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                    "-out", "\(name).crt", "-days", "2", "-extfile", "\(name).ext",
                ], in: folder)
        }
        for file in ["ca.key", "server.key", "client.key"] {
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.appendingPathComponent(file).path)
        }
        return tls
    }

    /// Runs `openssl arguments` in `folder`.
    private static func openssl(_ arguments: [String], in folder: URL) async throws {
        let candidates = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/bin/openssl"]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw PostgresClusterError(
                "no openssl command (looked for \(candidates.joined(separator: ", "))): install Debian's `openssl` package (`make deps` does)")
        }
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: path), arguments: arguments, environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"],
            currentDirectory: folder, timeout: .seconds(120))
        guard result.status == 0, !result.terminatedBySignal else {
            throw PostgresClusterError("openssl \(arguments.joined(separator: " ")) in \(folder.path) failed: \(result.summary)")
        }
    }

    /// The lines of `postgresql.conf` that turn TLS on with these files.
    var serverSettings: String {
        """
        ssl = on
        ssl_cert_file = '\(serverCertificate)'
        ssl_key_file = '\(serverKey)'
        ssl_ca_file = '\(caCertificate)'
        """
    }

    /// The lines of `pg_hba.conf` that come before the others: the certificate role over TLS only,
    /// the TLS-only role refused without TLS.
    var hostRules: String {
        """
        hostssl   all       \(Self.clientRole)                 127.0.0.1/32  cert
        host      all       \(Self.clientRole)                 127.0.0.1/32  reject
        hostnossl all       \(Self.tlsOnlyRole)                127.0.0.1/32  reject

        """
    }
}

extension PostgresCluster {
    /// Creates an empty database (``createDatabase(_:owner:)``) owned by the login role `role`
    /// (``PostgresClusterTLS/clientRole``, ``PostgresClusterTLS/tlsOnlyRole``); returns its name.
    public func createDatabase(_ label: String, ownedBy role: String) async throws -> String {
        let database = try await createDatabase(label)
        _ = try await psql("ALTER DATABASE \(Self.quoteIdentifier(database.name)) OWNER TO \(Self.quoteIdentifier(role))")
        return database.name
    }
}
