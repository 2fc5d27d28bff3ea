import Synchronization
import CurlHTTP
import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Testing

@Suite("CurlClient against a loopback server")
struct CurlClientTests {
    @Test("GET round trip keeps status, header order, repeated headers and body")
    func roundTrip() async throws {
        let seen = Recorder<LoopbackRequest>()
        try await withClientAndServer { request in
            seen.record(request)
            return LoopbackResponse(
                status: 200,
                headers: [
                    ("Content-Type", "application/json"),
                    ("Link", "<https://example.test/a?page=2>; rel=\"next\""),
                    ("X-Middle", "m"),
                    ("Link", "<https://example.test/a?page=9>; rel=\"last\""),
                ],
                text: "{\"ok\":true}")
        } _: { client, server in
            let response = try await client.send(
                get(server, "/items?page=1&per_page=5", headers: ["Accept": "application/json", "X-Trace": "t1"]))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "{\"ok\":true}")
            #expect(response.url.absoluteString == server.baseURL + "/items?page=1&per_page=5")
            #expect(
                response.headers.values(for: "link") == [
                    "<https://example.test/a?page=2>; rel=\"next\"", "<https://example.test/a?page=9>; rel=\"last\"",
                ])
            let names = response.headers.map(\.name).filter { ["Content-Type", "Link", "X-Middle"].contains($0) }
            #expect(names == ["Content-Type", "Link", "X-Middle", "Link"])
            #expect(response.headers["content-length"] == "11")

            let request = try #require(seen.values.first)
            #expect(request.method == "GET")
            #expect(request.target == "/items?page=1&per_page=5")
            #expect(request.path == "/items")
            #expect(request.query == "page=1&per_page=5")
            #expect(request.header("x-trace") == "t1")
            #expect(request.header("accept") == "application/json")
            #expect(request.header("user-agent") == "feedagg/0.1")
            #expect(request.header("accept-encoding")?.contains("gzip") == true)
        }
    }

    @Test("A non-2xx status is a response, not an error", arguments: [404, 429, 503])
    func nonSuccessStatus(status: Int) async throws {
        try await withClientAndServer { _ in
            LoopbackResponse(status: status, headers: [("Retry-After", "7")], text: "nope \(status)")
        } _: { client, server in
            let response = try await client.send(get(server, "/missing"))
            #expect(response.status == status)
            #expect(response.headers["Retry-After"] == "7")
            #expect(String(decoding: response.body, as: UTF8.self) == "nope \(status)")
        }
    }

    @Test("Redirects are followed; headers are those of the final response")
    func redirectFollowed() async throws {
        try await withClientAndServer { request in
            switch request.path {
            case "/old": LoopbackResponse(status: 301, headers: [("Location", "/hop"), ("X-Hop", "1")], text: "moved")
            case "/hop": LoopbackResponse(status: 302, headers: [("Location", "/new?x=1"), ("X-Hop", "2")])
            default: LoopbackResponse(headers: [("X-Final", "yes")], text: "landed at \(request.target)")
            }
        } _: { client, server in
            let response = try await client.send(get(server, "/old"))
            #expect(response.status == 200)
            #expect(response.url.absoluteString == server.baseURL + "/new?x=1")
            #expect(String(decoding: response.body, as: UTF8.self) == "landed at /new?x=1")
            #expect(response.headers["X-Hop"] == nil)
            #expect(response.headers["X-Final"] == "yes")
        }
    }

    @Test("A redirect loop fails with tooManyRedirects")
    func redirectLoop() async throws {
        var configuration = CurlClient.Configuration()
        configuration.maxRedirects = 3
        try await withClientAndServer(configuration) { request in
            LoopbackResponse(status: 302, headers: [("Location", request.path == "/a" ? "/b" : "/a")])
        } _: { client, server in
            let error = await transportError { try await client.send(get(server, "/a")) }
            #expect(error?.kind == .tooManyRedirects)
            #expect(server.stats.requestsServed == 4)
        }
    }

    @Test("A gzip body is decoded")
    func gzipDecoded() async throws {
        let text = String(repeating: "feedagg gzip body. ", count: 200)
        let compressed = try await gzip(Array(text.utf8))
        #expect(compressed.count < text.utf8.count)
        try await withClientAndServer { _ in
            LoopbackResponse(headers: [("Content-Encoding", "gzip"), ("Content-Type", "text/plain")], body: compressed)
        } _: { client, server in
            let response = try await client.send(get(server, "/compressed"))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == text)
        }
    }

    @Test("Connection refused fails with connectionFailed naming the URL")
    func connectionRefused() async throws {
        let refusing = try RefusingPort()
        let url = "http://127.0.0.1:\(refusing.port)/feed"
        let client = CurlClient()
        defer { client.shutdown() }
        let error = await transportError { try await client.send(HTTPRequest(url: try #require(URL(string: url)))) }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.description.contains(url) == true)
        withExtendedLifetime(refusing) {}
    }

    @Test("A server slower than totalTimeout fails with timedOut")
    func totalTimeout() async throws {
        var configuration = CurlClient.Configuration()
        configuration.totalTimeout = .milliseconds(200)
        try await withClientAndServer(configuration) { _ in
            LoopbackResponse(text: "late", delay: .seconds(60))
        } _: { client, server in
            let started = ContinuousClock.now
            let error = await transportError { try await client.send(get(server, "/slow")) }
            #expect(error?.kind == .timedOut)
            #expect(error?.detail == "no response within 0.2 s (timeout)")
            // Well before the server's answer (a loaded machine may delay the timer by seconds).
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }

    @Test("A server that accepts the request and never answers fails after firstByteTimeout, long before totalTimeout")
    func firstByteTimeout() async throws {
        var configuration = CurlClient.Configuration()
        configuration.firstByteTimeout = .milliseconds(300)
        configuration.totalTimeout = .seconds(60)
        try await withClientAndServer(configuration) { _ in
            LoopbackResponse(text: "late", delay: .seconds(60))
        } _: { client, server in
            let started = ContinuousClock.now
            let error = await transportError { try await client.send(get(server, "/stall")) }
            #expect(error?.kind == .timedOut)
            #expect(error?.detail == "no response within 0.3 s (first_byte_timeout)")
            #expect(ContinuousClock.now - started < .seconds(30), "cut off by the first-byte limit, not the total")
        }
    }

    @Test("firstByteTimeout does not cut a slow body whose head arrived in time")
    func firstByteTimeoutSparesSlowBodies() async throws {
        // The head at once, the body 1.5 s later, three times the first-byte limit. A server on
        // its own thread keeps the head's timing out of a busy cooperative pool's hands.
        let server = try ThreadedServer { part in
            switch part {
            case 0: (.zero, Array("HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\n".utf8))
            case 1: (.milliseconds(1_500), Array("body".utf8))
            default: nil
            }
        }
        defer { server.close() }
        var configuration = CurlClient.Configuration()
        configuration.firstByteTimeout = .milliseconds(500)
        let client = CurlClient(configuration: configuration)
        defer { client.shutdown() }
        let response = try await client.send(HTTPRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/slow-body"))))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "body")
    }

    @Test("A body trickling forever (fast enough for the low-speed limit) is cut off by totalTimeout")
    func trickleForeverHitsTotalTimeout() async throws {
        // The head announces a megabyte, then 10 bytes every 20 ms, for ever.
        let server = try ThreadedServer { part in
            part == 0
                ? (.zero, Array("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n".utf8))
                : (.milliseconds(20), Array(repeating: UInt8(ascii: "x"), count: 10))
        }
        defer { server.close() }
        var configuration = CurlClient.Configuration()
        configuration.totalTimeout = .seconds(1)
        configuration.firstByteTimeout = .milliseconds(500)
        let client = CurlClient(configuration: configuration)
        defer { client.shutdown() }
        let started = ContinuousClock.now
        let error = await transportError {
            try await client.send(HTTPRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)/forever"))))
        }
        #expect(error?.kind == .timedOut)
        #expect(error?.detail == "no complete response within 1 s (timeout)")
        // Without the limit the body never ends; the bound only proves that it ended (generous:
        // a loaded CI machine with tests running in parallel can delay the timer by seconds).
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test("A listener that never accepts (full backlog) fails after connectTimeout, naming it")
    func connectTimeout() async throws {
        let listener = try FullBacklogListener()
        defer { listener.close() }
        var configuration = CurlClient.Configuration()
        configuration.connectTimeout = .milliseconds(500)
        configuration.firstByteTimeout = .seconds(30)
        let client = CurlClient(configuration: configuration)
        defer { client.shutdown() }
        let url = try #require(URL(string: "http://127.0.0.1:\(listener.port)/never"))
        let error = await transportError { try await client.send(HTTPRequest(url: url)) }
        #expect(error?.kind == .timedOut)
        #expect(error?.detail == "could not connect within 0.5 s (connect_timeout)")
    }

    @Test("A trickling server is cut off by the low-speed limit")
    func lowSpeedLimit() async throws {
        var configuration = CurlClient.Configuration()
        configuration.lowSpeedLimit = 1000
        configuration.lowSpeedTime = .seconds(1)
        try await withClientAndServer(configuration) { _ in
            LoopbackResponse(
                body: Array(repeating: UInt8(ascii: "x"), count: 1000),
                fault: .trickle(bytesPerChunk: 1, interval: .milliseconds(200)))
        } _: { client, server in
            let started = ContinuousClock.now
            let error = await transportError { try await client.send(get(server, "/trickle")) }
            #expect(error?.kind == .timedOut)
            // The whole body would take 200 s: ending well before proves the limit cut it off.
            #expect(ContinuousClock.now - started < .seconds(60))
        }
    }

    @Test("A body over maxResponseBytes fails with responseTooLarge", arguments: [false, true])
    func responseTooLarge(compressed: Bool) async throws {
        var configuration = CurlClient.Configuration()
        configuration.maxResponseBytes = 1024
        // Uncompressed: Content-Length announces 4096 bytes. Compressed: ~40 bytes on the wire that
        // decode to 4096, caught while writing the decoded body.
        let plain = [UInt8](repeating: 0, count: 4096)
        let body = compressed ? try await gzip(plain) : plain
        let headers: [(name: String, value: String)] = compressed ? [("Content-Encoding", "gzip")] : []
        try await withClientAndServer(configuration) { _ in
            LoopbackResponse(headers: headers, body: body)
        } _: { client, server in
            let error = await transportError { try await client.send(get(server, "/big")) }
            #expect(error?.kind == .responseTooLarge)
            #expect(error?.detail.contains("1024") == true)
        }
    }

    @Test("A response at exactly maxResponseBytes is accepted")
    func responseAtLimit() async throws {
        var configuration = CurlClient.Configuration()
        configuration.maxResponseBytes = 1024
        try await withClientAndServer(configuration) { _ in
            LoopbackResponse(body: [UInt8](repeating: 7, count: 1024))
        } _: { client, server in
            let response = try await client.send(get(server, "/exact"))
            #expect(response.body.count == 1024)
        }
    }

    @Test("Broken responses fail with badResponse", arguments: [
        LoopbackResponse.Fault.truncateBody(afterBytes: 10), .closeWithoutResponse, .resetAfterHead,
        .wrongContentLength(500),
    ])
    func brokenResponse(fault: LoopbackResponse.Fault) async throws {
        // Timeouts far above any stall of a loaded machine, so the fault, not a timeout, ends it.
        let patient = CurlClient.Configuration(
            totalTimeout: .seconds(300), firstByteTimeout: .seconds(300), lowSpeedTime: .seconds(300))
        try await withClientAndServer(patient) { _ in
            LoopbackResponse(body: [UInt8](repeating: UInt8(ascii: "b"), count: 100), fault: fault)
        } _: { client, server in
            let error = await transportError { try await client.send(get(server, "/broken")) }
            #expect(error?.kind == .badResponse)
            #expect(error?.detail.isEmpty == false)
        }
    }

    @Test("200 concurrent requests all complete with their own bodies")
    func concurrentRequests() async throws {
        try await withClientAndServer { request in
            LoopbackResponse(text: "body for \(request.target)", delay: .milliseconds(5))
        } _: { client, server in
            let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<200 {
                    let request = try get(server, "/item/\(index)")
                    group.addTask {
                        let response = try await client.send(request)
                        return (index, String(decoding: response.body, as: UTF8.self))
                    }
                }
                var bodies: [Int: String] = [:]
                for try await (index, body) in group { bodies[index] = body }
                return bodies
            }
            #expect(bodies.count == 200)
            for index in 0..<200 { #expect(bodies[index] == "body for /item/\(index)") }
            #expect(server.stats.maxInFlight <= 16, "the default per-host limit")
        }
    }

    @Test("The per-host limit bounds requests in flight, not only connections")
    func perHostLimit() async throws {
        var configuration = CurlClient.Configuration()
        configuration.maxConnectionsPerHost = 3
        // No short timeout here: on a loaded 2-core machine even the first request can be slow,
        // so this test asserts only what the server counted, never a duration.
        try await withClientAndServer(configuration) { _ in
            LoopbackResponse(text: "ok", delay: .milliseconds(50))
        } _: { client, server in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<30 {
                    let request = try get(server, "/limited/\(index)")
                    group.addTask { try await client.send(request).status }
                }
                for try await status in group { #expect(status == 200) }
            }
            let stats = server.stats
            #expect(stats.requestsServed == 30)
            #expect(stats.maxInFlight <= 3)
            #expect(stats.maxInFlight > 1)
            #expect(stats.connectionsOpened <= 3)
        }
    }

    @Test("Sequential requests reuse one connection")
    func connectionReuse() async throws {
        let metrics = Recorder<CurlClient.TransferMetrics>()
        try await withClientAndServer(onTransfer: { metrics.record($0) }) { request in
            LoopbackResponse(text: request.target)
        } _: { client, server in
            for index in 0..<50 {
                let response = try await client.send(get(server, "/seq/\(index)"))
                #expect(String(decoding: response.body, as: UTF8.self) == "/seq/\(index)")
            }
            #expect(server.stats.connectionsOpened <= 2)
        }
        let recorded = metrics.values
        #expect(recorded.count == 50)
        #expect(recorded.filter(\.connectionReused).count >= 48)
        #expect(recorded.allSatisfy { $0.status == 200 && $0.httpVersion == "1.1" && $0.failure == nil })
    }

    @Test("Cancelling a running request throws cancelled promptly")
    func cancelRunning() async throws {
        try await withClientAndServer { _ in
            LoopbackResponse(text: "too late", delay: .seconds(300))
        } _: { client, server in
            let request = try get(server, "/never")
            let task = Task { try await client.send(request) }
            #expect(try await eventually { server.stats.inFlight == 1 })
            let started = ContinuousClock.now
            task.cancel()
            let result = await task.result
            // The server answers after 300 s: well under that means the cancellation ended it (a
            // loaded machine may be slow to run the cancellation, hence the wide bound).
            #expect(ContinuousClock.now - started < .seconds(120))
            #expect(throws: TransportError.self) { try result.get() }
            if case .failure(let error as TransportError) = result { #expect(error.kind == .cancelled) }
        }
    }

    @Test("Cancelling a queued request throws cancelled and leaves the others running")
    func cancelQueued() async throws {
        var configuration = CurlClient.Configuration()
        configuration.maxConnectionsPerHost = 1
        // The first response is held until the queued request has been cancelled, so the
        // outcome does not depend on how fast a loaded machine runs.
        let release = Mutex(false)
        try await withClientAndServer(configuration) { request in
            if request.path == "/first" {
                while !release.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
            }
            return LoopbackResponse(text: request.path)
        } _: { client, server in
            let first = try get(server, "/first")
            let second = try get(server, "/second")
            let running = Task { try await client.send(first) }
            #expect(try await eventually { server.stats.inFlight == 1 })
            let queued = Task { try await client.send(second) }
            try await Task.sleep(for: .milliseconds(20))
            queued.cancel()
            let queuedResult = await queued.result
            release.withLock { $0 = true }
            if case .failure(let error as TransportError) = queuedResult {
                #expect(error.kind == .cancelled)
            } else {
                Issue.record("queued request was not cancelled: \(queuedResult)")
            }
            let response = try await running.value
            #expect(String(decoding: response.body, as: UTF8.self) == "/first")
            #expect(server.stats.requestsServed == 1)
        }
    }

    @Test("A request from an already cancelled task throws cancelled without reaching the server")
    func cancelBeforeSend() async throws {
        try await withClientAndServer { _ in LoopbackResponse(text: "x") } _: { client, server in
            let request = try get(server, "/x")
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.send(request)
            }
            let result = await task.result
            if case .failure(let error as TransportError) = result {
                #expect(error.kind == .cancelled)
            } else {
                Issue.record("expected cancellation, got \(result)")
            }
            #expect(server.stats.requestsServed == 0)
        }
    }

    @Test("The Authorization value never appears in a TransportError")
    func authorizationRedacted() async throws {
        let secret = "Bearer ghp_SuperSecretToken123456"
        let headers: HTTPHeaders = ["Authorization": secret, "X-Api-Key": "key-abcdef-123456"]
        var configuration = CurlClient.Configuration()
        configuration.totalTimeout = .milliseconds(200)
        configuration.maxResponseBytes = 10
        var errors: [TransportError] = []
        try await withClientAndServer(configuration) { request in
            switch request.path {
            case "/slow": LoopbackResponse(delay: .seconds(10))
            case "/big": LoopbackResponse(text: String(repeating: "z", count: 100))
            case "/loop": LoopbackResponse(status: 302, headers: [("Location", "/loop")])
            default: LoopbackResponse(body: Array(repeating: 1, count: 5), fault: .truncateBody(afterBytes: 2))
            }
        } _: { client, server in
            for path in ["/slow", "/big", "/loop", "/broken"] {
                if let error = await transportError({ try await client.send(get(server, path, headers: headers)) }) {
                    errors.append(error)
                }
            }
        }
        let closed = try await LoopbackHTTPServer.start { _ in LoopbackResponse() }
        let closedURL = try #require(URL(string: closed.baseURL + "/x?access_token=tok-987654"))
        try await closed.shutdown()
        let client = CurlClient()
        defer { client.shutdown() }
        if let error = await transportError({ try await client.send(HTTPRequest(url: closedURL, headers: headers)) }) {
            errors.append(error)
        }
        #expect(errors.count == 5)
        for error in errors {
            let texts = [error.description, error.detail, String(describing: error), String(reflecting: error)]
            for text in texts {
                #expect(!text.contains("SuperSecretToken"))
                #expect(!text.contains("key-abcdef"))
            }
            #expect(!error.description.contains("tok-987654"))
        }
    }

    @Test("After shutdown, requests throw; shutdown is idempotent")
    func shutdownRefusesRequests() async throws {
        try await LoopbackHTTPServer.withServer { _ in LoopbackResponse(text: "ok") } _: { server in
            let client = CurlClient()
            let before = try await client.send(get(server, "/before"))
            #expect(before.status == 200)
            client.shutdown()
            client.shutdown()
            let error = await transportError { try await client.send(get(server, "/after")) }
            #expect(error?.kind == .other)
            #expect(error?.detail.contains("shut down") == true)
        }
    }

    @Test("Shutdown fails requests still in flight")
    func shutdownWithRequestInFlight() async throws {
        // No timeout may end the request first, however loaded the machine.
        let patient = CurlClient.Configuration(
            totalTimeout: .seconds(300), firstByteTimeout: .seconds(300), lowSpeedTime: .seconds(300))
        try await withClientAndServer(patient) { _ in LoopbackResponse(delay: .seconds(120)) } _: { client, server in
            let request = try get(server, "/pending")
            let task = Task { try await client.send(request) }
            #expect(try await eventually { server.stats.inFlight == 1 })
            client.shutdown()
            let result = await task.result
            if case .failure(let error as TransportError) = result {
                #expect(error.kind == .cancelled)
            } else {
                Issue.record("expected a TransportError, got \(result)")
            }
        }
    }

    @Test("Unsupported schemes are refused before libcurl sees them")
    func unsupportedScheme() async throws {
        let client = CurlClient()
        defer { client.shutdown() }
        let error = await transportError {
            try await client.send(HTTPRequest(url: try #require(URL(string: "file:///etc/passwd"))))
        }
        #expect(error?.kind == .other)
    }
}
