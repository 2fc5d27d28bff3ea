#if PostgreSQL
    import FeedStorage
    import FeedaggTesting
    import Foundation
    import PostgresFeedStore
    import Testing

    /// The PostgreSQL store over TLS, with libpq's `sslmode` meaning, against a test cluster with a
    /// throwaway CA (``PostgresCluster/sharedTLS()``) and one without TLS (``PostgresCluster/shared()``).
    @Suite("PostgreSQL store over TLS")
    struct PostgresStoreTLSTests {
        /// No `~/.postgresql/` defaults: only what a test gives counts.
        static let environment = ["HOME": "/nonexistent-feedagg-home"]

        static func open(_ text: String) throws -> PostgresFeedStore {
            try PostgresFeedStore.open(url: try PostgresURL(text, environment: environment), connectTimeout: .seconds(20))
        }

        /// `count` of the server's connections to `database` and whether every one is encrypted,
        /// from `pg_stat_ssl` (joined to `pg_stat_activity` by pid), as the superuser sees them.
        static func serverSideTLS(_ cluster: PostgresCluster, database: String) async throws -> (count: Int, allSSL: Bool) {
            let row = try await cluster.psql(
                "SELECT count(*), coalesce(bool_and(s.ssl), false) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) "
                    + "WHERE a.datname = '\(database)' AND a.pid <> pg_backend_pid()")
            let fields = row.split(separator: "|")
            return (Int(fields.first ?? "") ?? 0, fields.last == "t")
        }

        @Test("verify-full to localhost connects, and the server's pg_stat_ssl says every connection of the store is TLS")
        func verifyFullToLocalhost() async throws {
            let cluster = try await PostgresCluster.sharedTLS()
            let tls = try #require(cluster.tls)
            let database = try await cluster.createDatabase("tls_full")
            let store = try Self.open(
                "postgres://postgres@localhost:\(cluster.port)/\(database.name)?sslmode=verify-full&sslrootcert=\(tls.caCertificate)")
            defer { try? store.close() }
            _ = try store.feedSummaries()  // on a connection of the pool
            let seen = try await Self.serverSideTLS(cluster, database: database.name)
            #expect(seen.count >= 1 && seen.allSSL, "\(seen)")
            #expect(store.link.encrypted)
            #expect(store.link.description == "postgres://postgres@localhost:\(cluster.port)/\(database.name) (TLS, verified: verify-full)")
        }

        @Test("verify-full to 127.0.0.1 is refused: the certificate names localhost only")
        func verifyFullNameMismatch() async throws {
            let cluster = try await PostgresCluster.sharedTLS()
            let tls = try #require(cluster.tls)
            let database = try await cluster.createDatabase("tls_mismatch")
            let error = try #require(throws: StoreError.self) {
                try Self.open(
                    "postgres://postgres@127.0.0.1:\(cluster.port)/\(database.name)?sslmode=verify-full&sslrootcert=\(tls.caCertificate)")
            }
            #expect(error.kind == .cannotOpen)
            #expect(error.detail.contains("127.0.0.1:\(cluster.port)"), "\(error)")
            #expect(error.detail.contains("sslmode=verify-full"), "\(error)")
            #expect(error.detail.contains("does not name 127.0.0.1"), "\(error)")
            // verify-ca checks the chain only: the same address is fine.
            let store = try Self.open(
                "postgres://postgres@127.0.0.1:\(cluster.port)/\(database.name)?sslmode=verify-ca&sslrootcert=\(tls.caCertificate)")
            defer { try? store.close() }
            #expect(store.link.verification == .chain)
        }

        @Test("verify-ca with a root certificate that did not sign the server's is refused")
        func verifyCAWrongRoot() async throws {
            let cluster = try await PostgresCluster.sharedTLS()
            let tls = try #require(cluster.tls)
            let database = try await cluster.createDatabase("tls_wrong_root")
            // The client certificate is no CA: nothing the server sends chains to it.
            let error = try #require(throws: StoreError.self) {
                try Self.open(
                    "postgres://postgres@localhost:\(cluster.port)/\(database.name)?sslmode=require&sslrootcert=\(tls.clientCertificate)")
            }
            #expect(error.detail.contains("localhost:\(cluster.port)") && error.detail.contains("sslmode=require"), "\(error)")
        }

        @Test("require to a server without TLS is refused, naming host:port and the mode; prefer falls back to plaintext")
        func requireWithoutServerTLS() async throws {
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase("no_tls")
            let error = try #require(throws: StoreError.self) {
                try Self.open("postgres://postgres@127.0.0.1:\(cluster.port)/\(database.name)?sslmode=require")
            }
            #expect(error.kind == .cannotOpen)
            #expect(error.detail.contains("127.0.0.1:\(cluster.port)"), "\(error)")
            #expect(error.detail.contains("sslmode=require"), "\(error)")
            #expect(error.detail.contains("offers no TLS"), "\(error)")
            let store = try Self.open("postgres://postgres@127.0.0.1:\(cluster.port)/\(database.name)")
            defer { try? store.close() }
            #expect(store.link.security == "not encrypted: prefer, and the server offers no TLS")
        }

        @Test("prefer (the default) encrypts when the server offers TLS, without verifying")
        func preferEncrypts() async throws {
            let cluster = try await PostgresCluster.sharedTLS()
            let database = try await cluster.createDatabase("tls_prefer")
            let store = try Self.open("postgres://postgres@127.0.0.1:\(cluster.port)/\(database.name)")
            defer { try? store.close() }
            _ = try store.feedSummaries()
            #expect(store.link.security == "TLS, not verified: prefer")
            let seen = try await Self.serverSideTLS(cluster, database: database.name)
            #expect(seen.count >= 1 && seen.allSSL, "\(seen)")
        }

        @Test("a client certificate logs in the role it names (hostssl … cert); without it the server refuses")
        func clientCertificate() async throws {
            let cluster = try await PostgresCluster.sharedTLS()
            let tls = try #require(cluster.tls)
            let database = try await cluster.createDatabase("tls_cert", ownedBy: PostgresClusterTLS.clientRole)
            let base =
                "postgres://\(PostgresClusterTLS.clientRole)@localhost:\(cluster.port)/\(database)"
                + "?sslmode=verify-full&sslrootcert=\(tls.caCertificate)"
            let store = try Self.open(base + "&sslcert=\(tls.clientCertificate)&sslkey=\(tls.clientKey)")
            defer { try? store.close() }
            #expect(try store.feedNames().isEmpty)
            let seen = try await Self.serverSideTLS(cluster, database: database)
            #expect(seen.count >= 1 && seen.allSSL, "\(seen)")
            let refused = try #require(throws: StoreError.self) { try Self.open(base) }
            #expect(refused.kind == .cannotOpen)
            #expect(refused.detail.contains("localhost:\(cluster.port)"), "\(refused)")
            // A named certificate file that is missing is said so before connecting.
            let missing = try #require(throws: StoreError.self) {
                try Self.open(base + "&sslcert=/nonexistent/client.crt&sslkey=\(tls.clientKey)")
            }
            #expect(missing.detail.contains("/nonexistent/client.crt does not exist"), "\(missing)")
        }

        @Test("allow connects without TLS first, and with TLS when the server refuses that")
        func allowRetriesWithTLS() async throws {
            let cluster = try await PostgresCluster.sharedTLS()
            let database = try await cluster.createDatabase("tls_allow", ownedBy: PostgresClusterTLS.tlsOnlyRole)
            let url = "postgres://\(PostgresClusterTLS.tlsOnlyRole)@127.0.0.1:\(cluster.port)/\(database)"
            #expect(throws: StoreError.self) { try Self.open(url + "?sslmode=disable") }
            let store = try Self.open(url + "?sslmode=allow")
            defer { try? store.close() }
            _ = try store.feedSummaries()  // the pool, too, uses TLS at once
            #expect(store.link.security == "TLS, not verified: allow")
            let seen = try await Self.serverSideTLS(cluster, database: database)
            #expect(seen.count >= 1 && seen.allSSL, "\(seen)")
            // A role the server takes without TLS stays without it.
            let plain = try await cluster.createDatabase("tls_allow_plain")
            let other = try Self.open("postgres://postgres@127.0.0.1:\(cluster.port)/\(plain.name)?sslmode=allow")
            defer { try? other.close() }
            #expect(other.link.security == "not encrypted: allow, and the server accepts plaintext")
        }
    }
#endif
