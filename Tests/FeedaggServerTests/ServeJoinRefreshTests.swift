// A worker joining the shared schedule on PostgreSQL: built with the PostgreSQL trait (the default).
#if PostgreSQL

import FeedaggTesting
import Foundation
import Testing
import WorkerCoordination

// `feedagg serve` answers HTTP before its scheduler has the schedule: on PostgreSQL a worker
// first joins the shared schedule (coordination migrations, registration, declaring its feeds),
// a database away. A refresh asked for in that window used to be answered as done with nothing
// pulled for it. Here the window is held open by taking the coordination migrations' advisory
// lock from psql, so the test does not depend on timing.

@Suite("serve: a refresh asked for while a worker joins the shared schedule")
struct ServeJoinRefreshTests {
    @Test("It is not done until the worker has joined and pulled the feed for it")
    func refreshWhileJoining() async throws {
        let api = OrgsAPI(["acme": 5])
        let folder = try TemporaryFolder("feedagg-serve-join")
        defer { folder.remove() }
        try await api.serve { base in
            // An hour's interval: after its first pull the feed is not due again during the test.
            // Generous timeouts and retries: on a loaded machine the refresh's pull still reaches the API.
            let config = try folder.write(
                "feeds.yaml",
                ServeScheduleTests.yaml(["acme"], base: base, interval: "1h").replacingOccurrences(
                    of: "settings:\n", with: "settings:\n  retries: 5\n  timeout: 120\n  first_byte_timeout: 120\n"))
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase("join")
            let client = ServeClient()

            // A first worker joins, pulls acme once and stops.
            let first = try await ServeProcess.start(["--config", config.path, "--db", database.url])
            defer { first.process.kill() }
            try await ServeScheduleTests.eventually("the first pull of acme") {
                let (status, _) = try await client.text(first.url("/api/refresh/status"))
                let feeds = try #require(try jsonObject(status)["feeds"] as? [[String: Any]])
                return feeds.first?["last_result"] as? String == "updated"
            }
            let stopped = try await first.stop()
            #expect(stopped.status == 0, "\(stopped.summary)")
            let servedBefore = api.served.count

            // Hold the lock the next worker's join waits for, 20 s (psql ends the session then).
            async let holder = cluster.psql(
                "SELECT pg_advisory_lock(\(WorkerCoordinator.migrationLockKey)); SELECT pg_sleep(20);", database: database.name)
            try await ServeScheduleTests.eventually("psql holding the migrations' lock", timeout: .seconds(60)) {
                let held = try await cluster.psql(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted", database: database.name)
                return held != "0"
            }
            let worker = try await ServeProcess.start(["--config", config.path, "--db", database.url])
            defer { worker.process.kill() }

            let askedAt = Date()
            let response = try await client.send(worker.url("/api/refresh"), method: "POST")
            let asked = try jsonObject(String(decoding: response.body, as: UTF8.self))
            #expect(response.status == 202)
            #expect(asked["refresh"] as? Int == 1)
            // Before the fix: done at once, and acme was never asked for again.
            #expect(asked["done"] as? Bool == false, "\(asked)")

            // Once the lock is gone the worker joins, applies the refresh and pulls acme: this
            // worker never pulled it before, so a pull started after the request is the refresh's.
            var last: [String: Any] = [:]
            var lastText = ""
            try await ServeScheduleTests.eventually("the refresh done", timeout: .seconds(180)) {
                let (status, _) = try await client.text(worker.url("/api/refresh/status"))
                lastText = status
                let document = try jsonObject(status)
                last = (document["feeds"] as? [[String: Any]])?.first ?? [:]
                return document["done"] as? Bool == true
            }
            let started = (last["last_started_at"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }
            #expect(started.map { $0 >= askedAt.addingTimeInterval(-1) } == true, "acme pulled for the refresh: \(lastText); asked: \(asked)")
            _ = try await holder
            let output = try await worker.stop()
            #expect(output.status == 0, "\(output.summary)")
            #expect(output.stderr.contains("shares the schedule of 1 feeds"), "\(output.summary)")
            // The refresh's pull reached the API (a 304), whatever its outcome.
            #expect(api.served.count > servedBefore, "acme was asked for again: \(last)\n\(output.summary)")
            #expect(last["last_result"] as? String == "unchanged", "the refresh's pull: \(last)")
        }
    }
}

#endif
