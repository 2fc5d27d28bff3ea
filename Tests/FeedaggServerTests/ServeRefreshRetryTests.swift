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

/// One `feedagg serve` on a fresh database of the shared test cluster, pulling `acme` of an API
/// every hour (after its first pull it is not due again during a test), and psql on that database.
private struct RetryScene {
    let api: OrgsAPI
    let worker: ServeProcess
    let cluster: PostgresCluster
    let database: String
    let client = ServeClient()

    /// Runs `body` with a worker started over `api`; the worker is killed however `body` ends.
    static func with(_ api: OrgsAPI, label: String, _ body: (RetryScene) async throws -> Void) async throws {
        let folder = try TemporaryFolder("feedagg-serve-\(label)")
        defer { folder.remove() }
        try await api.serve { base in
            let config = try folder.write("feeds.yaml", ServeScheduleTests.yaml(["acme"], base: base, interval: "1h"))
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase(label)
            let worker = try await ServeProcess.start(["--config", config.path, "--db", database.url])
            defer { worker.process.kill() }
            try await body(RetryScene(api: api, worker: worker, cluster: cluster, database: database.name))
        }
    }

    /// `sql`'s output, through psql on the scene's database.
    @discardableResult
    func psql(_ sql: String) async throws -> String { try await cluster.psql(sql, database: database) }

    /// The shared schedule's table renamed away (every statement on it fails), or back.
    func scheduleAway(_ away: Bool) async throws {
        try await psql(away ? "ALTER TABLE feed_leases RENAME TO feed_leases_away" : "ALTER TABLE feed_leases_away RENAME TO feed_leases")
    }

    /// `/api/refresh/status`: whether the latest refresh is done, acme's entry, and the raw text.
    func status() async throws -> (done: Bool?, feed: [String: Any], text: String) {
        let (text, _) = try await client.text(worker.url("/api/refresh/status"))
        let document = try jsonObject(text)
        return (document["done"] as? Bool, (document["feeds"] as? [[String: Any]])?.first ?? [:], text)
    }
}

@Suite("serve: what the shared schedule could not take at once is sent again")
struct ServeRefreshRetryTests {
    @Test("It is not done while the database refuses it, and the feed is pulled for it once the database takes it")
    func refreshRetried() async throws {
        let api = OrgsAPI(["acme": 5])
        try await RetryScene.with(api, label: "refresh_retry") { scene in
            try await ServeScheduleTests.eventually("the first pull of acme") {
                try await scene.status().feed["last_result"] as? String == "updated"
            }
            // The first pull is recorded in the shared schedule before the next refresh starts.
            try await ServeScheduleTests.eventually("acme's lease completed") {
                try await scene.psql("SELECT count(*) FROM feed_leases WHERE last_pulled_at IS NOT NULL") == "1"
            }
            let servedBefore = api.served.count

            try await scene.scheduleAway(true)
            let askedAt = Date()
            let response = try await scene.client.send(scene.worker.url("/api/refresh"), method: "POST")
            #expect(response.status == 202)
            // Several lease polls (one a second at most) fail meanwhile; the refresh stays not done.
            for _ in 0..<6 {
                let now = try await scene.status()
                #expect(now.done == false, "a refresh the database did not take reads as done: \(now.text)")
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(api.served.count == servedBefore, "nothing was pulled while the schedule was away")
            try await scene.scheduleAway(false)

            var last = try await scene.status()
            try await ServeScheduleTests.eventually("the refresh done", timeout: .seconds(120)) {
                last = try await scene.status()
                return last.done == true
            }
            let started = (last.feed["last_started_at"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }
            #expect(started.map { $0 >= askedAt } == true, "acme pulled for the refresh: \(last.text)")
            #expect(api.served.count > servedBefore, "acme was asked for again: \(last.text)")
            let output = try await scene.worker.stop()
            #expect(output.status == 0, "\(output.summary)")
            #expect(output.stderr.contains("cannot make 1 feeds due for a refresh (trying again)"), "\(output.summary)")
        }
    }

    @Test("A lease the database could not end when its pull finished is ended once it can, with the pull's outcome")
    func completionRetried() async throws {
        // acme's page 2 waits for the gate: the pull is running while the table goes away.
        let api = OrgsAPI(["acme": 15], gatePage: 2)
        try await RetryScene.with(api, label: "complete_retry") { scene in
            try await ServeScheduleTests.eventually("acme's pull waiting for page 2") {
                api.served.contains { $0.page == 1 }
            }
            try await scene.scheduleAway(true)
            api.gate.open()
            try await ServeScheduleTests.eventually("acme's pull finished") {
                try await scene.status().feed["last_result"] as? String == "updated"
            }
            // A few lease polls fail to end the lease; then the table is back.
            try await Task.sleep(for: .seconds(2))
            try await scene.scheduleAway(false)
            var row = ""
            try await ServeScheduleTests.eventually("acme's lease ended", timeout: .seconds(60)) {
                row = try await scene.psql(
                    "SELECT lease_owner IS NULL, failures, next_due_at > clock_timestamp() + interval '50 minutes' FROM feed_leases")
                return row.hasPrefix("t")
            }
            // Ended as the pull ended: a success, due again an hour (± 10 %) later.
            #expect(row == "t|0|t", "lease_owner ended, failures, next due an interval later: \(row)")
            let output = try await scene.worker.stop()
            #expect(output.status == 0, "\(output.summary)")
            #expect(output.stderr.contains("cannot complete the leases of 'acme' (trying again)"), "\(output.summary)")
        }
    }
}

#endif
