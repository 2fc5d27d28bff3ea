// The shared schedule on PostgreSQL: built with the PostgreSQL trait (the default).
#if PostgreSQL

import FeedaggTesting
import Foundation
import Testing

// What a worker writes to the shared schedule on PostgreSQL can fail (the database away for a
// moment); here it fails because the schedule's table is renamed away from psql for a while.
// - `POST /api/refresh` makes the feeds due in the database. When that failed, the refresh was
//   lost and the status answered from the previous request (done, with nothing pulled).
// - A finished pull ends its lease. When that failed, the lease stayed with the worker, and its
//   heartbeats renewed it: no worker pulled the feed again until this one stopped.

@Suite("serve: what the shared schedule could not take at once is sent again")
struct ServeRefreshRetryTests {
    @Test("It is not done while the database refuses it, and the feed is pulled for it once the database takes it")
    func refreshRetried() async throws {
        let api = OrgsAPI(["acme": 5])
        let folder = try TemporaryFolder("feedagg-serve-refresh-retry")
        defer { folder.remove() }
        try await api.serve { base in
            // An hour's interval: after its first pull the feed is not due again during the test.
            let config = try folder.write("feeds.yaml", ServeScheduleTests.yaml(["acme"], base: base, interval: "1h"))
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase("refresh_retry")
            let client = ServeClient()
            let worker = try await ServeProcess.start(["--config", config.path, "--db", database.url])
            defer { worker.process.kill() }
            func status() async throws -> (done: Bool?, feed: [String: Any], text: String) {
                let (text, _) = try await client.text(worker.url("/api/refresh/status"))
                let document = try jsonObject(text)
                return (document["done"] as? Bool, (document["feeds"] as? [[String: Any]])?.first ?? [:], text)
            }
            try await ServeScheduleTests.eventually("the first pull of acme") {
                try await status().feed["last_result"] as? String == "updated"
            }
            // The first pull is recorded in the shared schedule before the next refresh starts.
            try await ServeScheduleTests.eventually("acme's lease completed") {
                try await cluster.psql("SELECT count(*) FROM feed_leases WHERE last_pulled_at IS NOT NULL", database: database.name) == "1"
            }
            let servedBefore = api.served.count

            _ = try await cluster.psql("ALTER TABLE feed_leases RENAME TO feed_leases_away", database: database.name)
            let askedAt = Date()
            let response = try await client.send(worker.url("/api/refresh"), method: "POST")
            #expect(response.status == 202)
            // Several lease polls (one a second at most) fail meanwhile; the refresh stays not done.
            for _ in 0..<6 {
                let now = try await status()
                #expect(now.done == false, "a refresh the database did not take reads as done: \(now.text)")
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(api.served.count == servedBefore, "nothing was pulled while the schedule was away")
            _ = try await cluster.psql("ALTER TABLE feed_leases_away RENAME TO feed_leases", database: database.name)

            var last = try await status()
            try await ServeScheduleTests.eventually("the refresh done", timeout: .seconds(120)) {
                last = try await status()
                return last.done == true
            }
            let started = (last.feed["last_started_at"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }
            #expect(started.map { $0 >= askedAt } == true, "acme pulled for the refresh: \(last.text)")
            #expect(api.served.count > servedBefore, "acme was asked for again: \(last.text)")
            let output = try await worker.stop()
            #expect(output.status == 0, "\(output.summary)")
            #expect(output.stderr.contains("cannot make 1 feeds due for a refresh (trying again)"), "\(output.summary)")
        }
    }

    @Test("A lease the database could not end when its pull finished is ended once it can, with the pull's outcome")
    func completionRetried() async throws {
        // acme's page 2 waits for the gate: the pull is running while the table goes away.
        let api = OrgsAPI(["acme": 15], gatePage: 2)
        let folder = try TemporaryFolder("feedagg-serve-complete-retry")
        defer { folder.remove() }
        try await api.serve { base in
            let config = try folder.write("feeds.yaml", ServeScheduleTests.yaml(["acme"], base: base, interval: "1h"))
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase("complete_retry")
            let worker = try await ServeProcess.start(["--config", config.path, "--db", database.url])
            defer { worker.process.kill() }
            try await ServeScheduleTests.eventually("acme's pull waiting for page 2") {
                api.served.contains { $0.page == 1 }
            }
            _ = try await cluster.psql("ALTER TABLE feed_leases RENAME TO feed_leases_away", database: database.name)
            api.gate.open()
            let client = ServeClient()
            try await ServeScheduleTests.eventually("acme's pull finished") {
                let (status, _) = try await client.text(worker.url("/api/refresh/status"))
                let feed = (try jsonObject(status)["feeds"] as? [[String: Any]])?.first ?? [:]
                return feed["last_result"] as? String == "updated"
            }
            // A few lease polls fail to end the lease; then the table is back.
            try await Task.sleep(for: .seconds(2))
            _ = try await cluster.psql("ALTER TABLE feed_leases_away RENAME TO feed_leases", database: database.name)
            var row = ""
            try await ServeScheduleTests.eventually("acme's lease ended", timeout: .seconds(60)) {
                row = try await cluster.psql(
                    "SELECT lease_owner IS NULL, failures, next_due_at > clock_timestamp() + interval '50 minutes' FROM feed_leases",
                    database: database.name)
                return row.hasPrefix("t")
            }
            // Ended as the pull ended: a success, due again an hour (± 10 %) later.
            #expect(row == "t|0|t", "lease_owner ended, failures, next due an interval later: \(row)")
            let output = try await worker.stop()
            #expect(output.status == 0, "\(output.summary)")
            #expect(output.stderr.contains("cannot complete the leases of 'acme' (trying again)"), "\(output.summary)")
        }
    }
}

#endif
