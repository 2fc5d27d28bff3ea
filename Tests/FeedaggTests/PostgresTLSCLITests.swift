import FeedaggTesting
import Foundation
import Testing

/// TLS to a PostgreSQL store through the real `feedagg` binary: what `feeds` and `pull --verbose`
/// say of the link, feeds.yaml's `store_tls`, the errors (exit 5) of a refused TLS link, and a
/// malformed URL whose password is never printed.
@Suite("PostgreSQL over TLS, from the command line")
struct PostgresTLSCLITests {
    /// The test environment with `HOME` in `folder` (no `~/.postgresql/` defaults).
    static func environment(_ folder: TemporaryFolder) -> [String: String] {
        var environment = TestBinary.cleanEnvironment
        environment["HOME"] = folder.path("home")
        return environment
    }

    @Test("feeds and pull --verbose say the link is TLS and verified (verify-full to localhost)")
    func announcesVerifiedLink() async throws {
        let (_, server, folder) = try await scene(["/orgs/one/repos": VersionedAPI.records(1...3)])
        defer { folder.remove() }
        let cluster = try await PostgresCluster.sharedTLS()
        let tls = try #require(cluster.tls)
        let database = try await cluster.createDatabase("cli_tls")
        let db = "postgres://postgres@localhost:\(cluster.port)/\(database.name)?sslmode=verify-full&sslrootcert=\(tls.caCertificate)"
        let config = try folder.write("feeds.yaml", feedsYAML(reposFeed("one", org: "one", base: server.baseURL)))
        let announced = "store: postgres://postgres@localhost:\(cluster.port)/\(database.name) (TLS, verified: verify-full)"
        let pulled = try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", db, "--verbose"], environment: Self.environment(folder))
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(pulled.stderr.contains(announced), "\(pulled.stderr)")
        let feeds = try await TestBinary.runFeedagg(
            ["feeds", "--config", config.path, "--db", db], environment: Self.environment(folder))
        #expect(feeds.status == 0, "\(feeds.stderr)")
        #expect(feeds.stderr.contains(announced), "\(feeds.stderr)")
        #expect(feeds.stdout.contains("one"), "\(feeds.stdout)")
        // serve --verbose says it at start; its coordination pool (the same URL) connects too.
        let serve = try BackgroundProcess.start(
            try TestBinary.feedagg,
            arguments: ["serve", "--config", config.path, "--db", db, "--listen", "127.0.0.1:0", "--verbose"],
            environment: Self.environment(folder))
        defer { serve.kill() }
        let line = await serve.waitForStandardError(timeout: .seconds(120)) { $0.contains(announced) ? true : nil }
        #expect(line == true, "\(serve.stderr)")
        // A worker registers through its coordination pool: the table appears once it has.
        var workers = ""
        let deadline = ContinuousClock.now + .seconds(60)
        while workers != "1" && ContinuousClock.now < deadline && !serve.hasExited {
            workers = (try? await cluster.psql("SELECT count(*) FROM worker_registry", database: database.name)) ?? ""
            if workers != "1" { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(workers == "1", "a worker registered through the TLS pool: \(serve.stderr)")
    }

    @Test("store_tls in feeds.yaml applies to the store: URL and --db; a parameter of the URL wins")
    func storeTLSSetting() async throws {
        let folder = try TemporaryFolder("feedagg-tls")
        defer { folder.remove() }
        let cluster = try await PostgresCluster.sharedTLS()
        let tls = try #require(cluster.tls)
        let database = try await cluster.createDatabase("cli_store_tls")
        // A path relative to feeds.yaml's folder.
        try FileManager.default.copyItem(atPath: tls.caCertificate, toPath: folder.path("root.crt"))
        let url = "postgres://postgres@localhost:\(cluster.port)/\(database.name)"
        let config = try folder.write(
            "feeds.yaml",
            """
            settings:
              store: \(url)
              store_tls: {sslmode: verify-full, sslrootcert: root.crt}
            \(feedsYAML(reposFeed("one", org: "one", base: "http://127.0.0.1:9")))
            """)
        let configured = try await TestBinary.runFeedagg(["feeds", "--config", config.path], environment: Self.environment(folder))
        #expect(configured.status == 0, "\(configured.stderr)")
        #expect(configured.stderr.contains("store: \(url) (TLS, verified: verify-full)"), "\(configured.stderr)")
        let overridden = try await TestBinary.runFeedagg(
            ["feeds", "--config", config.path, "--db", url + "?sslmode=disable"], environment: Self.environment(folder))
        #expect(overridden.status == 0, "\(overridden.stderr)")
        #expect(overridden.stderr.contains("store: \(url) (not encrypted: disable)"), "\(overridden.stderr)")
        // store_tls applies to the 127.0.0.1 of --db too: verify-full refuses it.
        let mismatch = try await TestBinary.runFeedagg(
            ["feeds", "--config", config.path, "--db", "postgres://postgres@127.0.0.1:\(cluster.port)/\(database.name)"],
            environment: Self.environment(folder))
        #expect(mismatch.status == 5, "\(mismatch.summary)")
        #expect(mismatch.stderr.contains("127.0.0.1:\(cluster.port)"), "\(mismatch.stderr)")
        #expect(mismatch.stderr.contains("sslmode=verify-full"), "\(mismatch.stderr)")
    }

    @Test("a store_tls with an unknown sslmode or key is a configuration error (exit 2) naming it")
    func invalidStoreTLS() async throws {
        let folder = try TemporaryFolder("feedagg-tls")
        defer { folder.remove() }
        for (setting, message) in [
            ("{sslmode: verify_full}", "'store_tls: sslmode' must be one of disable, allow, prefer, require, verify-ca, verify-full"),
            ("{sslpassword: x}", "unknown key 'sslpassword' in 'store_tls'"),
            ("verify-full", "'store_tls' must be a mapping"),
        ] {
            let config = try folder.write(
                "feeds.yaml",
                "settings:\n  store_tls: \(setting)\n" + feedsYAML(reposFeed("one", org: "one", base: "http://127.0.0.1:9")))
            let output = try await TestBinary.runFeedagg(["validate", "--config", config.path], environment: Self.environment(folder))
            #expect(output.status == 2, "\(setting): \(output.summary)")
            #expect(output.stderr.contains(message), "\(setting): \(output.stderr)")
        }
    }

    @Test("require to a server without TLS, and verify-full to a name the certificate lacks: exit 5 naming host:port and the mode")
    func refusedLinks() async throws {
        let folder = try TemporaryFolder("feedagg-tls")
        defer { folder.remove() }
        let plain = try await PostgresCluster.shared()
        let plainDatabase = try await plain.createDatabase("cli_require")
        let require = try await TestBinary.runFeedagg(
            ["feeds", "--db", "postgres://postgres@127.0.0.1:\(plain.port)/\(plainDatabase.name)?sslmode=require"],
            environment: Self.environment(folder))
        #expect(require.status == 5, "\(require.summary)")
        #expect(require.stderr.contains("127.0.0.1:\(plain.port)"), "\(require.stderr)")
        #expect(require.stderr.contains("sslmode=require"), "\(require.stderr)")

        let cluster = try await PostgresCluster.sharedTLS()
        let tls = try #require(cluster.tls)
        let database = try await cluster.createDatabase("cli_mismatch")
        let mismatch = try await TestBinary.runFeedagg(
            [
                "feeds", "--db",
                "postgres://postgres@127.0.0.1:\(cluster.port)/\(database.name)?sslmode=verify-full&sslrootcert=\(tls.caCertificate)",
            ], environment: Self.environment(folder))
        #expect(mismatch.status == 5, "\(mismatch.summary)")
        #expect(mismatch.stderr.contains("127.0.0.1:\(cluster.port)"), "\(mismatch.stderr)")
        #expect(mismatch.stderr.contains("sslmode=verify-full"), "\(mismatch.stderr)")
    }

    @Test("a malformed URL whose password holds / and ? never prints the password")
    func malformedURLHidesPassword() async throws {
        let folder = try TemporaryFolder("feedagg-tls")
        defer { folder.remove() }
        let closed = try RefusingPort()
        let secret = "se/cr?et"
        let urls = [
            "postgres://u:\(secret)@127.0.0.1:port/db",
            "postgres://u:\(secret)@/db",
            "postgres://u:\(secret)@127.0.0.1:\(closed.port)/",
            "postgres://u:\(secret)@127.0.0.1:\(closed.port)/db?sslmode=bogus",
            "postgres://u:\(secret)?sslmode=x@127.0.0.1:\(closed.port)/db",
            // Well-formed (raw / and ? in the password): the connection is refused.
            "postgres://u:\(secret)@127.0.0.1:\(closed.port)/db",
            "postgres://u:se%2Fcr%3Fet@127.0.0.1:\(closed.port)/db",
        ]
        for url in urls {
            let output = try await TestBinary.runFeedagg(["feeds", "--db", url], environment: Self.environment(folder))
            #expect(output.status == 5, "\(url): \(output.summary)")
            for fragment in ["se/cr", "cr?et", "se%2Fcr", "cr%3Fet"] {
                #expect(!output.stdout.contains(fragment) && !output.stderr.contains(fragment), "\(url): \(output.summary)")
            }
        }
    }
}
