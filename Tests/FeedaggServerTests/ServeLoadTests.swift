import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Bounded load (issue 25): 256 connections hammering /api/items through wrk (Debian's `wrk`,
// installed by `make test`) leave serve below 150 MB of resident memory at its peak, and
// /healthz answers throughout. Performance is measured by `make bench`, not here: this checks
// only bounds that hold on any machine.

@Suite("serve: bounded under 256 connections")
struct ServeLoadTests {
    /// A process's peak resident memory in bytes (`VmHWM` of /proc/PID/status), 0 when unreadable.
    static func peakResident(of pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kilobytes * 1024
        }
        return 0
    }

    /// `wrk`'s path, from PATH.
    static var wrk: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/wrk" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test("wrk -c256 on /api/items: peak RSS below 150 MB, /healthz answered during the load, every answer 200 or 503")
    func manyConnections() async throws {
        guard let wrk = Self.wrk else {
            Issue.record("wrk is not installed (make test installs Debian's wrk): the load test cannot run")
            return
        }
        let api = OrgsAPI(["acme": 400, "beta": 400])
        let folder = try TemporaryFolder("feedagg-serve-load")
        defer { folder.remove() }
        try await api.serve { base in
            var yaml = ServeScheduleTests.yaml(["acme", "beta"], base: base, interval: "1h")
            yaml = yaml.replacingOccurrences(of: "per_page: 10", with: "per_page: 100")
            let config = try folder.write("feeds.yaml", yaml)
            let serve = try await ServeProcess.start(["--config", config.path, "--db", folder.path("s.sqlite")])
            defer { serve.process.kill() }
            let client = ServeClient()
            try await ServeScheduleTests.eventually("800 items stored") {
                let (text, _) = try await client.text(serve.url("/api/items?limit=1"))
                return text.contains("\"total_items\":800")
            }
            let target = serve.url("/api/items?limit=50").absoluteString
            async let load = ChildProcess.run(
                URL(fileURLWithPath: wrk), arguments: ["-t2", "-c256", "-d5s", "--timeout", "10s", "--latency", target], timeout: .seconds(60))
            // While wrk runs: the health check still answers.
            try await Task.sleep(for: .seconds(1))
            var healthy = 0
            for _ in 0..<5 {
                let started = ContinuousClock.now
                let response = try await client.send(serve.url("/healthz"))
                // A generous bound: the whole test suite may be loading the 2 cores meanwhile.
                if response.status == 200 && ContinuousClock.now - started < .seconds(15) { healthy += 1 }
                try await Task.sleep(for: .milliseconds(500))
            }
            let output = try await load
            #expect(output.status == 0, "wrk: \(output.summary)")
            #expect(output.stdout.contains("Requests/sec"), "wrk ran: \(output.stdout)")
            #expect(healthy == 5, "/healthz answered \(healthy) of 5 times within 15 s during the load")
            let peak = Self.peakResident(of: serve.process.pid)
            print("serve under wrk -c256: peak RSS \(peak / 1_048_576) MB\n\(output.stdout)")
            #expect(peak > 0 && peak < 150 * 1_048_576, "peak RSS \(peak / 1_048_576) MB")
            // Non-2xx answers may only be the busy server's 503s.
            if let line = output.stdout.split(separator: "\n").first(where: { $0.contains("Non-2xx") }) {
                let count = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
                let (metrics, _) = try await client.text(serve.url("/metrics"))
                #expect(metrics.contains("feedagg_http_refused_total{reason=\"busy\"}") || count == 0, "\(line)")
            }
            let (after, _) = try await client.text(serve.url("/healthz"))
            #expect(after.contains("ok"))
            let stopped = try await serve.stop()
            #expect(stopped.status == 0, "\(stopped.summary)")
        }
    }
}
