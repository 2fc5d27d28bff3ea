import CurlHTTP
import FeedCore
import FeedStore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// A long-running `feedagg serve` asked for 200 refreshes of 10 feeds against a server that fails
// 20% of requests at random (seeded): no crash, no duplicate, no lost item, memory stable.
//
// The memory is that of the serve process, read from its /proc/PID/statm: this test process runs
// other tests beside it, so its own resident size says nothing about feedagg's.

/// Resident memory of process `pid` in bytes (Linux `/proc/PID/statm`), 0 when it cannot be read.
private func residentBytes(of pid: Int32) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

private struct SoakError: Error, CustomStringConvertible {
    let description: String
}

@Suite("Soak: feedagg serve, 200 refreshes of 10 feeds, 20% of requests failing")
struct SoakTests {
    @Test("no crash, no duplicate, no lost item, memory stable")
    func soak() async throws {
        let api = VersionedAPI()
        for org in 1...10 { api.set("/orgs/org\(org)/repos", VersionedAPI.records((org * 1_000 + 1)...(org * 1_000 + 25))) }
        let random = Mutex(SplitMix(state: 20_261_121))
        let failing = Mutex(true)
        let failed = Atomic(0)
        let base = Mutex("")
        let server = try await LoopbackHTTPServer.start { request in
            let fail = failing.withLock { $0 } && random.withLock { generator in Double.random(in: 0..<1, using: &generator) < 0.2 }
            if fail {
                failed.add(1, ordering: .relaxed)
                switch random.withLock({ Int.random(in: 0..<4, using: &$0) }) {
                case 0: return LoopbackResponse(status: 500, text: #"{"message":"boom"}"#)
                case 1: return LoopbackResponse(status: 503, text: "unavailable")
                case 2: return LoopbackResponse(status: 200, text: "[]", fault: .resetAfterHead)
                default: return LoopbackResponse(status: 200, text: "[{\"id\": 1, \"na")  // truncated JSON
                }
            }
            return api.handle(request, base: base.withLock { $0 })
        }
        base.withLock { $0 = server.baseURL }
        let folder = try TemporaryFolder("feedagg-soak")
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("soak.sqlite")
        let feeds = (1...10).map { org in
            """
              - name: org\(org)
                source: github.repos
                org: org\(org)
                per_page: 10
                base_url: \(server.baseURL)
            """
        }
        // A day's interval: nothing is pulled but the start and the refreshes asked for (every one:
        // no min_refresh, so failing feeds are not held back).
        let config = try folder.write(
            "feeds.yaml", "settings:\n  retries: 0\n  interval: 1d\n  min_refresh: 0\nfeeds:\n" + feeds.joined(separator: "\n") + "\n")
        let serve = try BackgroundProcess.start(
            try TestBinary.feedagg, arguments: ["serve", "--listen", "127.0.0.1:0", "--config", config.path, "--db", db.path],
            environment: TestBinary.cleanEnvironment)
        defer { serve.kill() }
        let address = await serve.waitForStandardError { line -> URL? in
            line.hasPrefix("serving http://127.0.0.1:") ? URL(string: String(line.dropFirst("serving ".count))) : nil
        }
        guard let address else {
            serve.kill()
            throw SoakError(description: "feedagg serve did not print its address\n\(try await serve.wait().summary)")
        }
        // Generous limits: this soak checks what the server keeps and frees over 200 refreshes, not
        // its latency, and the rest of the suite may load the 2 cores meanwhile (a status answer once
        // took over 30 s to arrive in a full run).
        let client = CurlClient(configuration: .init(totalTimeout: .seconds(300), firstByteTimeout: .seconds(240), lowSpeedTime: .seconds(240)))
        defer { client.shutdown() }

        /// The refresh status document.
        func status() async throws -> [String: Any] {
            let response = try await client.send(HTTPRequest(url: URL(string: address.absoluteString + "/api/refresh/status")!))
            guard response.status == 200, let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any] else {
                throw SoakError(description: "status: \(response.status) \(String(decoding: response.body, as: UTF8.self))")
            }
            return object
        }
        /// Waits until `condition` holds of the status (3 minutes at most).
        func waitFor(_ what: String, _ condition: ([String: Any]) -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(180)
            while ContinuousClock.now < deadline {
                if condition(try await status()) { return }
                if serve.hasExited { throw SoakError(description: "feedagg serve exited: \(try await serve.wait().summary)") }
                try await Task.sleep(for: .milliseconds(10))
            }
            // Stuck: say what the schedule holds and where serve's threads are, before it is killed.
            let document = (try? await client.send(HTTPRequest(url: URL(string: address.absoluteString + "/api/refresh/status")!)))
                .map { String(decoding: $0.body, as: UTF8.self) } ?? "(no status)"
            let stacks = await ProcessStacks.capture(pid: serve.pid)
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("feedagg-soak-stuck-\(serve.pid).txt")
            try? Data("status: \(document)\n\nstderr:\n\(serve.stderr)\n\nstacks:\n\(stacks)".utf8).write(to: path)
            throw SoakError(
                description: "never happened: \(what)\nstatus: \(document)\nserve's stderr (last 4,000 bytes):\n"
                    + "\(serve.stderr.suffix(4_000))\nthread stacks of serve (all of them in \(path.path)):\n\(stacks.prefix(12_000))")
        }
        try await waitFor("the pulls at start") { status in
            let feeds = status["feeds"] as? [[String: Any]] ?? []
            return feeds.count == 10 && feeds.allSatisfy { $0["last_result"] is String } && (status["pulling"] as? [Any])?.isEmpty == true
        }

        let reader = Aggregator(console: .discardingErrors, environment: [:])
        var stored: [String: Set<String>] = [:]
        var residentAt20 = 0
        var failuresReported = 0
        for refresh in 1...200 {
            // Every 25 refreshes, two feeds get a new repository (so pulls keep changing the store).
            if refresh % 25 == 0 {
                for org in [refresh / 25 % 10 + 1, (refresh / 25 + 5) % 10 + 1] {
                    api.edit("/orgs/org\(org)/repos") { records in
                        records.insert(VersionedAPI.Record(id: org * 1_000 + 100 + refresh, name: "new-\(org)-\(refresh)", updated: 1_800_000_000 + refresh), at: 0)
                    }
                }
            }
            let response = try await client.send(HTTPRequest(url: URL(string: address.absoluteString + "/api/refresh")!, method: "POST", headers: ["X-Feedagg-Client": "soak"]))
            try #require(response.status == 202, "POST /api/refresh: \(response.status)")
            let number = try #require((try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["refresh"] as? Int)
            try await waitFor("refresh \(refresh) done") { ($0["refresh"] as? Int ?? 0) >= number && $0["done"] as? Bool == true }
            // What feedagg itself reported of this refresh: each feed whose pull failed.
            let reported = (try await status()["feeds"] as? [[String: Any]] ?? []).filter { $0["last_result"] as? String == "failed" }
            failuresReported += reported.count
            for feed in reported where (feed["last_error"] as? String ?? "").isEmpty {
                Issue.record("refresh \(refresh): \(feed["name"] ?? "?") failed without saying why")
            }

            var byFeed: [String: [String]] = [:]
            var everything = ShowSettings(configPath: config.path)
            everything.store = .file(db.path)
            everything.perPage = 10_000
            for entry in try reader.show(everything).entries { byFeed[entry.feed, default: []].append(entry.item.id) }
            for (feed, ids) in byFeed {
                #expect(Set(ids).count == ids.count, "refresh \(refresh): duplicates in \(feed)")
                let before = stored[feed] ?? []
                #expect(before.isSubset(of: Set(ids)), "refresh \(refresh): \(feed) lost \(before.subtracting(ids))")
                stored[feed] = Set(ids)
            }
            if refresh == 20 { residentAt20 = residentBytes(of: serve.pid) }
        }
        let residentAt200 = residentBytes(of: serve.pid)
        // feedagg reported failed pulls (retries: 0, so each failed request fails its feed's pull),
        // no more than the requests the server failed.
        let injected = failed.load(ordering: .relaxed)
        #expect(failuresReported > 100, "feedagg reported \(failuresReported) failed pulls; the server failed \(injected) requests")
        #expect(failuresReported <= injected, "feedagg reported \(failuresReported) failed pulls from \(injected) failed requests")

        // A clean refresh brings every feed to exactly the server's items.
        failing.withLock { $0 = false }
        let last = try await client.send(HTTPRequest(url: URL(string: address.absoluteString + "/api/refresh")!, method: "POST", headers: ["X-Feedagg-Client": "soak"]))
        let lastNumber = try #require((try JSONSerialization.jsonObject(with: last.body) as? [String: Any])?["refresh"] as? Int)
        try await waitFor("the clean refresh") { ($0["refresh"] as? Int ?? 0) >= lastNumber && $0["done"] as? Bool == true }
        serve.send(SIGTERM)
        let output = try await serve.wait(timeout: .seconds(120))
        #expect(output.status == 0 && !output.terminatedBySignal, "\(output.summary)")

        let store = try FeedStore.open(path: db.path)
        #expect(try store.integrityCheck())
        for summary in try store.feedSummaries() {
            let expected = api.state.withLock { $0.collections["/orgs/\(summary.name)/repos"]?.count ?? -1 }
            #expect(summary.itemCount == expected, "\(summary.name)")
        }
        try store.close()
        try await server.shutdown()
        // Memory of the serve process: what 180 more refreshes added, well under a leak per pull.
        #expect(residentAt20 > 0 && residentAt200 > 0)
        #expect(residentAt200 - residentAt20 < 16 << 20, "serve's RSS grew \((residentAt200 - residentAt20) >> 20) MB from refresh 20 to 200")
        print(
            "soak: serve, 200 refreshes × 10 feeds, \(failed.load(ordering: .relaxed)) requests failed; RSS \(residentAt20 >> 20) MB at refresh 20, \(residentAt200 >> 20) MB at refresh 200"
        )
    }
}
