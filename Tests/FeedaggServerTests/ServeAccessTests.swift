import FeedaggTesting
@testable import FeedaggServer
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Who may connect: loopback by default; any other address only with a token file, and then every
// request needs `Authorization: Bearer <token>`.

@Suite("serve: listening address, bearer token, escaping")
struct ServeAccessTests {
    /// A feeds.yaml with one feed (never pulled here) and a store path in `folder`.
    static func config(in folder: TemporaryFolder) throws -> (config: String, db: String) {
        let yaml = "feeds:\n  - name: acme\n    source: github.repos\n    org: acme\n    base_url: http://127.0.0.1:9\n"
        return (try folder.write("feeds.yaml", yaml).path, folder.path("store.sqlite"))
    }

    @Test("A non-loopback --listen without --auth-token-file is refused at start (exit 2, a clear message)")
    func nonLoopbackNeedsToken() async throws {
        let folder = try TemporaryFolder("feedagg-serve-access")
        defer { folder.remove() }
        let (config, db) = try Self.config(in: folder)
        let output = try await TestBinary.runFeedagg(
            ["serve", "--config", config, "--db", db, "--listen", "0.0.0.0:0"], timeout: .seconds(60))
        #expect(output.status == 2, "\(output.summary)")
        #expect(output.stderr.contains("--listen 0.0.0.0:0 is reachable from other machines: give --auth-token-file FILE"))
        #expect(!output.stderr.contains("serving"))

        let loose = try folder.write("token", "s3cret-token\n")
        chmod(loose.path, 0o644)
        let refused = try await TestBinary.runFeedagg(
            ["serve", "--config", config, "--db", db, "--listen", "0.0.0.0:0", "--auth-token-file", loose.path])
        #expect(refused.status == 2, "\(refused.summary)")
        #expect(refused.stderr.contains("can be read or written by others (mode 644)"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("s3cret"), "the token never appears in a message")

        for bad in ["localhost:http", "127.0.0.1:70000", "::1:80"] {
            let output = try await TestBinary.runFeedagg(["serve", "--config", config, "--db", db, "--listen", bad])
            #expect(output.status == 2 && output.stderr.contains("--listen '\(bad)'"), "\(bad): \(output.summary)")
        }
    }

    @Test("An address in use: exit 2 naming it, and nothing fetched (the pulls wait for the server to listen)")
    func addressInUse() async throws {
        let api = OrgsAPI(["acme": 3])
        let folder = try TemporaryFolder("feedagg-serve-in-use")
        defer { folder.remove() }
        try await api.serve { base in
            let config = try folder.write("feeds.yaml", ServeScheduleTests.yaml(["acme"], base: base))
            let first = try await ServeProcess.start(["--config", config.path, "--db", folder.path("a.sqlite")])
            defer { first.process.kill() }
            try await ServeScheduleTests.eventually("the first server's pull") { api.served.count == 1 }
            let taken = "127.0.0.1:\(first.base.port ?? 0)"
            let output = try await TestBinary.runFeedagg(
                ["serve", "--config", config.path, "--db", folder.path("b.sqlite"), "--listen", taken])
            #expect(output.status == 2, "\(output.summary)")
            #expect(output.stderr.contains("feedagg serve: cannot listen on \(taken): "), "\(output.stderr)")
            #expect(api.served.count == 1, "the second server fetched nothing")
            _ = try await first.stop()
        }
    }

    @Test("With a token file: 401 without the header or with a wrong token, 200 with it; no secret in answers")
    func bearerToken() async throws {
        let folder = try TemporaryFolder("feedagg-serve-token")
        defer { folder.remove() }
        let (config, db) = try Self.config(in: folder)
        let token = try folder.write("token", "  s3cret-token-4711\n")
        chmod(token.path, 0o600)
        // 0.0.0.0 listens on every address; the test connects through loopback only.
        let process = try BackgroundProcess.start(
            try TestBinary.feedagg,
            arguments: ["serve", "--config", config, "--db", db, "--listen", "0.0.0.0:0", "--auth-token-file", token.path],
            environment: TestBinary.cleanEnvironment)
        defer { process.kill() }
        let port = await process.waitForStandardError { line -> Int? in
            line.hasPrefix("serving http://0.0.0.0:") ? Int(line.split(separator: ":").last ?? "") : nil
        }
        let client = ServeClient()
        let base = "http://127.0.0.1:\(try #require(port, "\(process.stderr)"))"
        for path in ["/api/items", "/healthz", "/stream.atom", "/"] {
            let url = URL(string: base + path)!
            // Wrong tokens on one path only: ten in a minute from one address get 429 (ServeSecurityTests).
            let wrong: [[(String, String)]] = [
                [("Authorization", "Bearer wrong")], [("Authorization", "Bearer s3cret-token-471")],
                [("Authorization", "Basic czNjcmV0LXRva2VuLTQ3MTE=")], [("Authorization", "s3cret-token-4711")],
            ]
            for headers in [[]] + (path == "/api/items" ? wrong : []) {
                let response = try await client.send(url, headers: headers)
                let body = String(decoding: response.body, as: UTF8.self)
                #expect(response.status == 401, "\(path) \(headers): \(response.status)")
                #expect(response.headers["WWW-Authenticate"] == "Bearer realm=\"feedagg\"")
                #expect(!body.contains("s3cret"), "\(path): \(body)")
            }
            let allowed = try await client.send(url, headers: [("Authorization", "Bearer s3cret-token-4711")])
            #expect(allowed.status == 200, "\(path)")
            for (name, value) in allowed.headers { #expect(!value.contains("s3cret") && !value.contains(folder.url.path), "\(name)") }
            #expect(!String(decoding: allowed.body, as: UTF8.self).contains("s3cret"))
        }
        process.send(SIGTERM)
        let output = try await process.wait()
        #expect(output.status == 0, "\(output.summary)")
        #expect(!output.stderr.contains("s3cret"))
    }

    @Test("SIGTERM or SIGINT as soon as it serves, five times each: always a graceful stop (exit 0), never the signal's default action")
    func signalsRightAfterStart() async throws {
        let folder = try TemporaryFolder("feedagg-serve-signals")
        defer { folder.remove() }
        let (config, db) = try Self.config(in: folder)
        for signal in [SIGTERM, SIGINT] {
            for _ in 0..<5 {
                let serve = try await ServeProcess.start(["--config", config, "--db", db])
                serve.process.send(signal)
                // A generous wait: a loaded machine may be slow to start and stop the process; a
                // signal's default action would show as terminatedBySignal, whatever the time.
                let output = try await serve.process.wait(timeout: .seconds(120))
                #expect(output.status == 0 && !output.terminatedBySignal, "signal \(signal): \(output.summary)")
            }
        }
    }

    @Test("A client that never finishes its request, and an idle keep-alive connection, do not hold up the stop: exit 0 before the grace period ends")
    func stopWithStalledClients() async throws {
        let folder = try TemporaryFolder("feedagg-serve-stalled")
        defer { folder.remove() }
        let (config, db) = try Self.config(in: folder)
        let serve = try await ServeProcess.start(["--config", config, "--db", db])
        defer { serve.process.kill() }
        let port = try #require(serve.base.port)
        // Half a request: the headers never end.
        let stalled = try Self.connect(port: port)
        defer { close(stalled) }
        _ = "GET /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\n".withCString { send(stalled, $0, strlen($0), 0) }
        // A kept-alive connection after one answered request.
        let client = ServeClient()
        _ = try await client.text(serve.url("/healthz"))
        serve.process.send(SIGTERM)
        let output = try await serve.process.wait(timeout: .seconds(120))
        #expect(output.status == 0 && !output.terminatedBySignal, "\(output.summary)")
        // Had a stalled client held the stop up, the grace period would have run out and the
        // server would have said so; no wall-clock bound, which a loaded machine could miss.
        #expect(!output.stderr.contains("outlived"), "\(output.summary)")
    }

    /// A TCP connection to 127.0.0.1:`port` (a socket descriptor).
    static func connect(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard socket >= 0, result == 0 else { throw ServeTestError("cannot connect to 127.0.0.1:\(port)") }
        return socket
    }

    @Test("Bearer comparison: exact token only, whatever the length")
    func constantTimeCompare() {
        #expect(AuthToken.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!AuthToken.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!AuthToken.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!AuthToken.constantTimeEqual([], Array("a".utf8)))
    }

    @Test("--listen parsing: host:port, [v6]:port, :port; loopback or not")
    func listenAddresses() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(try ListenAddress(parsing: "[::1]:0") == ListenAddress(host: "::1", port: 0))
        #expect(try ListenAddress(parsing: ":9000") == ListenAddress(host: "127.0.0.1", port: 9000))
        #expect(try ListenAddress(parsing: "127.1.2.3:1").isLoopback)
        #expect(try ListenAddress(parsing: "localhost:1").isLoopback)
        #expect(try !ListenAddress(parsing: "0.0.0.0:1").isLoopback)
        #expect(try !ListenAddress(parsing: "127.0.0.1.example.com:1").isLoopback)
        #expect(try !ListenAddress(parsing: "[::]:1").isLoopback)
        #expect(throws: ServeError.self) { try ListenAddress(parsing: "8080") }
    }
}
