// Workers share a PostgreSQL store: built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Several `feedagg serve` processes on one PostgreSQL database share the feeds
// (docs/worker-coordination.md): three real workers, loopback GitHub-like servers whose request
// logs are the evidence, intervals and leases compressed with the hidden `--interval-scale`.

@Suite("serve: workers sharing a PostgreSQL store")
struct ServeWorkersTests {
    /// Feeds per server, and servers.
    static let feedsPerServer = 100
    static let servers = 3

    /// feeds.yaml: `feedsPerServer` one-page feeds (`s{server}-o{n}`, `repos` repositories each)
    /// on each server of `bases`.
    static func yaml(_ bases: [URL], repos: Int, extraSettings: [String] = []) -> String {
        var text = "settings:\n  interval: 1m\n  lease_timeout: 2m\n  rate_limit_wait: 1\n  page_concurrency: 1\n"
        text += extraSettings.map { "  \($0)\n" }.joined()
        text += "feeds:\n"
        for (server, base) in bases.enumerated() {
            for feed in 0..<feedsPerServer {
                text += "  - name: s\(server)-o\(feed)\n    source: github.repos\n    org: s\(server)-o\(feed)\n"
                text += "    per_page: 10\n    base_url: \(base.absoluteString)\n"
            }
        }
        return text
    }

    /// One API per server, each org with `repos` repositories; requests for pages from `gatePage` wait.
    static func apis(repos: Int, gatePage: Int? = nil) -> [OrgsAPI] {
        (0..<servers).map { server in
            OrgsAPI(
                Dictionary(uniqueKeysWithValues: (0..<feedsPerServer).map { ("s\(server)-o\($0)", repos) }), gatePage: gatePage)
        }
    }

    /// Serves `apis` on loopback while `body` runs with their base URLs.
    static func serve<T>(_ apis: [OrgsAPI], _ body: ([URL]) async throws -> T) async throws -> T {
        func nest(_ index: Int, _ bases: [URL]) async throws -> T {
            guard index < apis.count else { return try await body(bases) }
            return try await apis[index].serve { base in try await nest(index + 1, bases + [base]) }
        }
        return try await nest(0, [])
    }

    /// `count` workers on `config` and `db`.
    static func startWorkers(_ count: Int, config: String, db: String, scale: String) async throws -> [ServeProcess] {
        var workers: [ServeProcess] = []
        for _ in 0..<count {
            do {
                workers.append(try await ServeProcess.start(["--config", config, "--db", db, "--interval-scale", scale]))
            } catch {
                for worker in workers { worker.process.kill() }
                throw error
            }
        }
        return workers
    }

    /// SIGTERMs `worker` and waits for it to end: status 0 (running pulls commit what they
    /// fetched and give their leases back).
    static func stop(_ worker: ServeProcess) async throws {
        let output = try await worker.stop()
        #expect(output.status == 0 && !output.terminatedBySignal, "\(output.summary)")
    }

    /// The feeds whose last pull this worker started (its `/api/refresh/status`).
    static func pulledBy(_ worker: ServeProcess, _ client: ServeClient) async throws -> Set<String> {
        let (status, _) = try await client.text(worker.url("/api/refresh/status"))
        let feeds = try #require(try jsonObject(status)["feeds"] as? [[String: Any]])
        return Set(feeds.filter { $0["last_started_at"] is String }.compactMap { $0["name"] as? String })
    }

    @Test(
        "3 workers, 300 feeds on 3 servers: each feed pulled by one worker once per interval; a rate limit on one server pauses all three workers' requests to it until the reset"
    )
    func shareFeedsAndPauses() async throws {
        let apis = Self.apis(repos: 3)
        let folder = try TemporaryFolder("feedagg-serve-workers")
        defer { folder.remove() }
        try await Self.serve(apis) { bases in
            let config = try folder.write("feeds.yaml", Self.yaml(bases, repos: 3))
            let db = try await PostgresCluster.shared().createDatabase("workers").url
            // 1 minute × 0.1: feeds due every 6 s (± 10 %), leases of 12 s renewed every 4 s.
            let workers = try await Self.startWorkers(Self.servers, config: config.path, db: db, scale: "0.1")
            defer { for worker in workers { worker.process.kill() } }
            let client = ServeClient()
            let orgs = apis.enumerated().flatMap { server, _ in (0..<Self.feedsPerServer).map { "s\(server)-o\($0)" } }
            func requests() -> [String: [Date]] {
                Dictionary(grouping: apis.flatMap(\.served), by: \.org).mapValues { $0.map(\.at).sorted() }
            }

            // Every feed pulled four times: the first pull and three scheduled refreshes.
            try await ServeScheduleTests.eventually("every feed requested four times", timeout: .seconds(300)) {
                let counts = requests()
                return orgs.allSatisfy { (counts[$0]?.count ?? 0) >= 4 }
            }
            // A feed pulled by two workers in one interval would show two requests close together;
            // one worker pulls it again only after 0.9 × 6 s.
            let gaps = requests().mapValues { times in zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) } }
            let close = gaps.filter { $0.value.contains { $0 < 3 } }
            #expect(close.isEmpty, "requested twice within half an interval: \(close.sorted { $0.key < $1.key }.prefix(5))")
            #expect(apis.flatMap(\.served).allSatisfy { $0.page == 1 && [200, 304].contains($0.status) })
            var pulled: [Set<String>] = []
            for worker in workers { pulled.append(try await Self.pulledBy(worker, client)) }
            #expect(pulled.reduce(Set<String>()) { $0.union($1) } == Set(orgs))
            #expect(pulled.filter { !$0.isEmpty }.count >= 2, "the feeds were shared: \(pulled.map(\.count))")

            // /api/feeds: each feed's worker (or null) and next due time.
            let (listed, _) = try await client.text(workers[0].url("/api/feeds"))
            let entries = try #require(try jsonObject(listed)["feeds"] as? [[String: Any]])
            #expect(entries.count == orgs.count)
            #expect(entries.allSatisfy { $0["next_due_at"] is String && $0.keys.contains("worker") }, "\(listed.prefix(600))")
            // `feedagg feeds` (not a worker) reads the same schedule: JSON and the table.
            let cli = try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", db, "--format", "json"])
            #expect(cli.status == 0, "\(cli.summary)")
            let listedByCLI = try #require(try jsonObject(cli.stdout)["feeds"] as? [[String: Any]])
            #expect(listedByCLI.count == orgs.count)
            #expect(listedByCLI.allSatisfy { $0["next_due_at"] is String && $0.keys.contains("worker") }, "\(cli.stdout.prefix(600))")
            // A worker's id is `host:pid:random`: every holder is one of the three processes.
            let pids = Set(workers.map { String($0.process.pid) })
            let holders = listedByCLI.compactMap { $0["worker"] as? String }
            #expect(holders.allSatisfy { $0.split(separator: ":").dropFirst().first.map { pids.contains(String($0)) } ?? false }, "\(holders)")
            let table = try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", db])
            #expect(table.status == 0 && table.stdout.contains("WORKER") && table.stdout.contains("NEXT DUE"), "\(table.summary)")

            // A rate limit on server 1 (one of its feeds meets a 403 with a reset 30 s later): no
            // worker sends that server anything until the reset; the other servers go on.
            apis[1].rateLimit("s1-o0", for: 30)
            try await ServeScheduleTests.eventually("the rate limit answered", timeout: .seconds(300)) {
                apis[1].rateLimitReset("s1-o0") != nil
            }
            let reset = try #require(apis[1].rateLimitReset("s1-o0"))
            let limited = try #require(apis[1].served.first { $0.status == 403 }?.at)
            try await ServeScheduleTests.eventually("server 1 answered again after the reset", timeout: .seconds(300)) {
                apis[1].served.contains { $0.at > reset && $0.status != 403 }
            }
            // The worker that met the limit records it at once; the others read it at their next
            // poll (0.1 s here) and their running pulls stop sending. Requests already on the wire,
            // and a machine loaded by the whole suite, get an 8 s margin; then nothing until the
            // reset (sent as whole seconds: up to 1 s early). That is 20 s of silence checked.
            let window = limited.addingTimeInterval(8)...reset.addingTimeInterval(-1.5)
            let during = apis[1].served.filter { window.contains($0.at) }
            let lastBeforeReset = apis[1].served.filter { $0.at > limited && $0.at < reset.addingTimeInterval(-1.5) }.map(\.at).max()
            let afterLimit = apis[1].served.filter { $0.at > limited && $0.at < reset.addingTimeInterval(-1.5) }.count
            print(
                "rate limit: \(afterLimit) requests reached the paused server after its first 403, the last "
                    + String(format: "%.2f", (lastBeforeReset ?? limited).timeIntervalSince(limited))
                    + " s after it; none then until the reset \(String(format: "%.1f", reset.timeIntervalSince(limited))) s after it")
            #expect(during.isEmpty, "requests to the paused server: \(during.prefix(10))")
            #expect(apis[0].served.filter { window.contains($0.at) }.count >= Self.feedsPerServer, "server 0 went on")
            try await ServeScheduleTests.eventually("every feed of server 1 pulled after the reset", timeout: .seconds(300)) {
                Set(apis[1].served.filter { $0.at > reset && $0.status != 403 }.map(\.org)).count == Self.feedsPerServer
            }

            for worker in workers { try await Self.stop(worker) }
        }
    }

    @Test(
        "kill -9 of a worker mid-pull: its feeds go to the others after lease_timeout and resume from their checkpoint; every item stored, none twice"
    )
    func killedWorker() async throws {
        // 25 repositories per org: three pages of 10; page 2 and later wait for the gate.
        let apis = Self.apis(repos: 25, gatePage: 2)
        let folder = try TemporaryFolder("feedagg-serve-kill")
        defer { folder.remove() }
        try await Self.serve(apis) { bases in
            let config = try folder.write("feeds.yaml", Self.yaml(bases, repos: 25))
            let db = try await PostgresCluster.shared().createDatabase("kill").url
            // 1 minute × 0.1: 6 s intervals, 12 s leases.
            let workers = try await Self.startWorkers(Self.servers, config: config.path, db: db, scale: "0.1")
            defer { for worker in workers { worker.process.kill() } }
            let client = ServeClient()

            // The victim holds feeds, each stopped at page 2 (page 1 stored as its checkpoint).
            var held: [String] = []
            var victim = 0
            try await ServeScheduleTests.eventually("a worker holding feeds mid-pull", timeout: .seconds(300)) {
                for (index, worker) in workers.enumerated() {
                    let (status, _) = try await client.text(worker.url("/api/refresh/status"))
                    let feeds = try #require(try jsonObject(status)["pulling"] as? [String])
                    if !feeds.isEmpty {
                        let waiting = Set(apis.flatMap(\.served).filter { $0.page == 1 }.map(\.org))
                        guard feeds.allSatisfy(waiting.contains) else { return false }
                        (held, victim) = (feeds, index)
                        return true
                    }
                }
                return false
            }
            // Its page 1 saved: each held feed's checkpoint says the walk resumes at page 2.
            try await ServeScheduleTests.eventually("the held feeds' checkpoints", timeout: .seconds(300)) {
                let (listed, _) = try await client.text(workers[victim].url("/api/feeds"))
                let entries = try #require(try jsonObject(listed)["feeds"] as? [[String: Any]])
                let resuming = Set(entries.filter { $0["resumes_at_page"] as? Int == 2 }.compactMap { $0["name"] as? String })
                return Set(held).isSubset(of: resuming)
            }
            workers[victim].process.send(SIGKILL)
            let killed = try await workers[victim].process.wait(timeout: .seconds(120))
            #expect(killed.terminatedBySignal)
            let killedAt = Date()
            for api in apis { api.gate.open() }

            // Every item of every feed stored (60 × 25), each once: the stream has exactly that many.
            let expected = Self.servers * Self.feedsPerServer * 25
            let survivor = workers[(victim + 1) % workers.count]
            try await ServeScheduleTests.eventually("every item stored", timeout: .seconds(300)) {
                let (items, _) = try await client.text(survivor.url("/api/items?limit=1"))
                return (try jsonObject(items)["total_items"] as? Int) == expected
            }
            let refreshedAfter = Date().timeIntervalSince(killedAt)
            // The victim's feeds were taken over (after its leases expired) and resumed: page 1 of
            // such a feed was fetched by the victim only (the others resumed at page 2).
            let survivors = workers.indices.filter { $0 != victim }.map { workers[$0] }
            let takenOver = survivors.map(\.process.stderr).joined().components(separatedBy: "\n")
                .filter { $0.contains("taken over from worker") }
            #expect(!takenOver.isEmpty, "no takeover reported")
            for feed in held {
                let served = apis.flatMap(\.served).filter { $0.org == feed }
                #expect(served.filter { $0.page == 1 && $0.status == 200 }.count == 1, "\(feed): \(served)")
                #expect(served.contains { $0.page == 3 }, "\(feed) resumed to its end: \(served)")
            }
            // Every item, paged by cursor (one 7,500-item answer is slow for a debug build under load).
            // Item ids repeat across servers (each numbers its orgs alike): an item is its feed and id.
            var keys: [String] = []
            var after: String?
            repeat {
                let query = "/api/items?limit=500" + (after.map { "&after=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? "")
                let (text, _) = try await client.text(survivor.url(query))
                let page = try jsonObject(text)
                keys += (page["items"] as? [[String: Any]] ?? []).compactMap { item -> String? in
                    guard let feed = item["feed"] as? String, let id = item["id"] as? String else { return nil }
                    return feed + "/" + id
                }
                after = page["next_cursor"] as? String
            } while after != nil && keys.count <= expected
            #expect(keys.count == expected && Set(keys).count == expected)
            print("kill -9: \(held.count) feeds held by the killed worker; every item stored \(String(format: "%.1f", refreshedAfter)) s after the kill (lease_timeout 12 s + interval 6 s)")
            for worker in survivors { try await Self.stop(worker) }
        }
    }
}

#endif
