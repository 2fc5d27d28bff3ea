import FeedCore
import FeedaggTesting
import Foundation
import Testing

// The scheduler after failures, read from GET /api/refresh/status: the next pull of a failing
// feed waits twice as long after each failure in a row (±10 % jitter), and a feed stopped by a
// rate limit is not pulled before the limit's reset, however short its interval.

@Suite("serve: backoff after failures, rate limits")
struct ServeBackoffTests {
    /// The `feeds[]` entry of `name` in the status document.
    static func entry(_ name: String, _ client: ServeClient, _ serve: ServeProcess) async throws -> [String: Any]? {
        let (status, _) = try await client.text(serve.url("/api/refresh/status"))
        return (try jsonObject(status)["feeds"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    /// Seconds between two ISO 8601 dates of an entry.
    static func seconds(_ entry: [String: Any], from: String, to: String) throws -> Double {
        let start = try #require((entry[from] as? String).flatMap(ISO8601.date(from:)), "\(from) in \(entry)")
        let end = try #require((entry[to] as? String).flatMap(ISO8601.date(from:)), "\(to) in \(entry)")
        return end.timeIntervalSince(start)
    }

    @Test("A failing feed backs off: 2×, then 4× the interval after the second failure in a row; a healthy one keeps its interval")
    func exponentialBackoff() async throws {
        let api = OrgsAPI(["acme": 3])
        let folder = try TemporaryFolder("feedagg-serve-backoff")
        defer { folder.remove() }
        try await api.serve { base in
            // ghost answers 404. 1 minute × 0.1 = 6 s: first failure → ~12 s, second → ~24 s.
            let config = try folder.write(
                "feeds.yaml", ServeScheduleTests.yaml(["acme", "ghost"], base: base, interval: "1m"))
            let serve = try await ServeProcess.start(
                ["--config", config.path, "--db", folder.path("s.sqlite"), "--interval-scale", "0.1"])
            defer { serve.process.kill() }
            let client = ServeClient()
            var ghost: [String: Any] = [:]
            do {
                try await ServeScheduleTests.eventually("ghost failed once") {
                    ghost = try await Self.entry("ghost", client, serve) ?? [:]
                    return ghost["failures"] as? Int == 1
                }
            } catch {
                // Seen once under heavy load (a debug build beside a release build and 25 suites):
                // say what the status and the server said.
                Issue.record("ghost's last status: \(ghost)\nrequests served: \(api.served.count)\nserve's stderr:\n\(serve.process.stderr.suffix(4000))")
                throw error
            }
            #expect(ghost["state"] as? String == "backing_off")
            #expect((ghost["last_error"] as? String)?.contains("HTTP 404") == true, "\(ghost)")
            let firstWait = try Self.seconds(ghost, from: "last_finished_at", to: "next_pull_at")
            #expect((10.0...14.5).contains(firstWait), "12 s ± 10 % (and 1 s of timestamp rounding): \(firstWait)")
            // acme's 6 s interval may have it pulling again right now: read it between pulls.
            var acme: [String: Any] = [:]
            try await ServeScheduleTests.eventually("acme scheduled between its pulls") {
                acme = try await Self.entry("acme", client, serve) ?? [:]
                return acme["state"] as? String == "scheduled"
            }
            #expect(acme["failures"] as? Int == 0, "\(acme)")
            let acmeWait = try Self.seconds(acme, from: "last_finished_at", to: "next_pull_at")
            #expect((4.0...7.7).contains(acmeWait), "6 s ± 10 %: \(acmeWait)")

            // Ask now rather than wait 12 s: a refresh overrides the backoff, a second failure doubles it.
            _ = try await client.send(serve.url("/api/refresh?feed=ghost"), method: "POST")
            try await ServeScheduleTests.eventually("ghost failed twice") {
                ghost = try await Self.entry("ghost", client, serve) ?? [:]
                return ghost["failures"] as? Int == 2 && ghost["state"] as? String == "backing_off"
            }
            let secondWait = try Self.seconds(ghost, from: "last_finished_at", to: "next_pull_at")
            #expect((20.6...27.4).contains(secondWait), "24 s ± 10 %: \(secondWait)")
            #expect(api.served.filter { $0.org == "ghost" }.count == 2)
            let output = try await serve.stop()
            #expect(output.status == 0, "\(output.summary)")
            #expect(output.stderr.contains("HTTP 404"), "failures are logged: \(output.stderr)")
        }
    }

    @Test("A feed stopped by a rate limit is not pulled before the reset, even with a 0.3 s interval")
    func rateLimitReset() async throws {
        let api = OrgsAPI(["acme": 3])
        api.rateLimit("acme", for: 90)
        let folder = try TemporaryFolder("feedagg-serve-ratelimit")
        defer { folder.remove() }
        try await api.serve { base in
            let config = try folder.write(
                "feeds.yaml",
                ServeScheduleTests.yaml(["acme"], base: base, interval: "1m").replacingOccurrences(
                    of: "settings:\n", with: "settings:\n  rate_limit_wait: 1\n"))
            // 1 minute × 0.005 = 0.3 s: without the limit, a dozen pulls would start in 4 s.
            let serve = try await ServeProcess.start(
                ["--config", config.path, "--db", folder.path("s.sqlite"), "--interval-scale", "0.005"])
            defer { serve.process.kill() }
            let client = ServeClient()
            var acme: [String: Any] = [:]
            try await ServeScheduleTests.eventually("acme stopped by the rate limit") {
                acme = try await Self.entry("acme", client, serve) ?? [:]
                return acme["rate_limited_until"] is String
            }
            let until = try #require((acme["rate_limited_until"] as? String).flatMap(ISO8601.date(from:)))
            let reset = try #require(api.rateLimitReset("acme"))
            #expect(abs(until.timeIntervalSince(reset)) < 1.5, "the server's reset: \(acme)")
            let next = try #require((acme["next_pull_at"] as? String).flatMap(ISO8601.date(from:)))
            #expect(next >= until.addingTimeInterval(-1), "no pull before the reset: \(acme)")
            #expect((acme["last_error"] as? String)?.contains("rate limited") == true, "\(acme)")
            let asked = api.served.count
            try await Task.sleep(for: .seconds(3))
            #expect(api.served.count == asked, "no request during the limit: \(api.served.count - asked) more")
            let output = try await serve.stop()
            #expect(output.status == 0, "\(output.summary)")
        }
    }
}
