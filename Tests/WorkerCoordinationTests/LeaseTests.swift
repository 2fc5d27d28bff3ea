// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedaggTesting
import Foundation
import PostgresNIO
import Testing
import WorkerCoordination

#if canImport(Glibc)
    import Glibc
#endif

/// Leases on the real cluster: every due feed to exactly one worker, none starved, a dead
/// worker's feeds to another after the lease timeout, due times after success and failure.
@Suite("Worker coordination: leases")
struct LeaseTests {
    @Test("concurrent migrations: one applies version 1, the others find it done")
    func concurrentMigrations() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase("migrate")
        let clients = (0..<4).map { _ in makeClient(database) }
        let applied = try await withThrowingTaskGroup(of: [Int32]?.self) { group in
            for client in clients { group.addTask { await client.run(); return nil } }
            var applied: [[Int32]] = []
            try await withThrowingTaskGroup(of: [Int32].self) { migrations in
                for client in clients { migrations.addTask { try await WorkerCoordinator.migrate(client, logger: testLogger) } }
                for try await result in migrations { applied.append(result) }
            }
            group.cancelAll()
            return applied
        }
        #expect(applied.filter { $0 == [1] }.count == 1)
        #expect(applied.filter { $0.isEmpty }.count == 3)
        #expect(try await cluster.psql("select count(*) from worker_coordination_migrations", database: database.name) == "1")
    }

    @Test("8 coordinators leasing 200 due feeds at once: each feed pulled exactly once, none left")
    func concurrentLeasing() async throws {
        try await withCoordinationDatabase { client, _ in
            let all = feeds(200)
            let first = WorkerCoordinator(client: client, id: WorkerID("w0"), logger: testLogger)
            try await first.declare(all)
            // Every (feed, worker) pair leased, from all workers.
            let leased = try await withThrowingTaskGroup(of: [(String, String)].self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        let coordinator = WorkerCoordinator(client: client, id: WorkerID("w\(worker)"), logger: testLogger)
                        try await coordinator.register()
                        try await coordinator.declare(all)  // every worker declares its configuration
                        var mine: [(String, String)] = []
                        while true {
                            let leases = try await coordinator.leaseDueFeeds(limit: 7)
                            if leases.isEmpty { break }
                            for lease in leases {
                                mine.append((lease.feed, "w\(worker)"))
                                #expect(try await coordinator.complete(lease, outcome: .succeeded))
                            }
                        }
                        return mine
                    }
                }
                var all: [(String, String)] = []
                for try await mine in group { all += mine }
                return all
            }
            let pulled = Dictionary(grouping: leased, by: \.0).mapValues { $0.map(\.1) }
            let result = pulled
            #expect(result.count == 200)
            #expect(result.values.allSatisfy { $0.count == 1 }, "pulled twice: \(result.filter { $0.value.count > 1 })")
            let schedule = try await first.schedule()
            #expect(schedule.count == 200)
            #expect(schedule.allSatisfy { $0.heldBy == nil && $0.lastPulledAt != nil && $0.failures == 0 })
            #expect(try await first.leaseDueFeeds(limit: 10).isEmpty)  // next due in an hour
        }
    }

    @Test("a worker killed with SIGKILL holding leases: its feeds go to another worker after the lease timeout")
    func deadWorkerLosesItsLeases() async throws {
        try await withCoordinationDatabase { client, database in
            let survivor = WorkerCoordinator(client: client, id: WorkerID("survivor"), logger: testLogger)
            try await survivor.declare(feeds(5))
            let holder = try BackgroundProcess.start(
                try TestBinary.locate("feedagg-lease-holder"),
                arguments: [
                    database.cluster.host, "\(database.cluster.port)", database.cluster.superuser, database.name, "doomed",
                    "30000", "3",
                ],
                environment: ["PATH": "/usr/bin:/bin"])
            defer { holder.kill() }
            let leased = await holder.waitForStandardError(timeout: .seconds(300)) { line in
                line.hasPrefix("leased: ") ? line.dropFirst("leased: ".count).split(separator: ",").map(String.init) : nil
            }
            let held = try #require(leased, "the lease holder printed nothing: \(holder.stderr)")
            #expect(held == ["feed-000", "feed-001", "feed-002"])
            holder.send(SIGKILL)
            let exit = try await holder.wait(timeout: .seconds(120))
            #expect(exit.terminatedBySignal && exit.status == SIGKILL)

            // Its leases outlive it: the survivor gets only the other two while they last.
            let during = try await survivor.schedule()
            let stillHeld = during.filter { $0.heldBy == "doomed" }.map(\.feed)
            #expect(stillHeld.sorted() == held, "the killed worker's leases are still in force: \(during)")
            let others = try await survivor.leaseDueFeeds(limit: 10)
            #expect(Set(others.map(\.feed)) == ["feed-003", "feed-004"], "only the unleased feeds: \(others.map(\.feed))")
            for lease in others { try await survivor.complete(lease, outcome: .succeeded) }

            // After the lease timeout (30 s on the database's clock) the survivor takes them over.
            var takenOver: [FeedLease] = []
            _ = try await poll {
                takenOver += try await survivor.leaseDueFeeds(limit: 10)
                return takenOver.count >= 3 ? true : nil
            }
            #expect(takenOver.map(\.feed).sorted() == held)
            #expect(takenOver.allSatisfy { $0.takenOverFrom == "doomed" })
            #expect(try await survivor.schedule().filter { $0.heldBy == "survivor" }.count == 3)
        }
    }

    @Test("a worker whose lease expired and was taken can neither renew nor complete it")
    func lostLeaseIsFenced() async throws {
        try await withCoordinationDatabase { client, _ in
            let slow = WorkerCoordinator(
                client: client, id: WorkerID("slow"), settings: CoordinationSettings(leaseTimeout: .seconds(1)),
                logger: testLogger)
            let other = WorkerCoordinator(client: client, id: WorkerID("other"), logger: testLogger)
            try await slow.declare(feeds(1))
            let lease = try #require(try await slow.leaseDueFeeds(limit: 1).first)
            let taken = try await poll { try await other.leaseDueFeeds(limit: 1).first }
            #expect(taken?.feed == lease.feed)
            #expect(taken?.takenOverFrom == "slow")
            #expect(try await slow.renew(lease) == nil)
            #expect(try await slow.complete(lease, outcome: .succeeded) == false)
            #expect(try await other.schedule().first?.heldBy == "other")
            let renewed = try await other.renew(try #require(taken))
            #expect(renewed != nil)
        }
    }

    @Test("a heartbeat renews the worker's leases")
    func heartbeatRenews() async throws {
        try await withCoordinationDatabase { client, _ in
            let worker = WorkerCoordinator(
                client: client, id: WorkerID("beating"), settings: CoordinationSettings(leaseTimeout: .seconds(600)),
                logger: testLogger)
            try await worker.register()
            try await worker.declare(feeds(2))
            let leases = try await worker.leaseDueFeeds(limit: 2)
            #expect(leases.count == 2)
            try await Task.sleep(for: .milliseconds(50))
            #expect(try await worker.heartbeat() == 1)
            let after = try await worker.schedule()
            for lease in leases {
                let renewed = try #require(after.first { $0.feed == lease.feed }?.leaseExpiresAt)
                #expect(renewed > lease.expiresAt)
            }
        }
    }

    @Test("a batch's leases end in one statement, each with its own outcome; a lease lost meanwhile is left to its new holder")
    func batchCompletion() async throws {
        try await withCoordinationDatabase { client, _ in
            let slow = WorkerCoordinator(
                client: client, id: WorkerID("batch"), settings: CoordinationSettings(leaseTimeout: .seconds(1), jitter: 0),
                logger: testLogger)
            let other = WorkerCoordinator(client: client, id: WorkerID("other"), logger: testLogger)
            try await slow.declare(["ok": .seconds(60), "broken": .seconds(60), "limited": .seconds(60), "lost": .seconds(60)])
            let leases = try await slow.leaseDueFeeds(limit: 4)
            #expect(leases.count == 4)
            // Every lease expires; the other worker takes "lost" (an expired lease nobody took is
            // still this worker's to complete).
            let taken = try await poll { try await other.leaseDueFeeds(limit: 1, among: ["lost"]).first }
            #expect(taken?.feed == "lost")
            let reset = Date().addingTimeInterval(3_600)
            let outcomes: [String: PullOutcome] = [
                "ok": .succeeded, "broken": .failed(message: "HTTP 500", rateLimitedUntil: nil),
                "limited": .failed(message: "HTTP 429", rateLimitedUntil: reset), "lost": .succeeded,
            ]
            let completed = try await slow.complete(leases.map { ($0, outcomes[$0.feed]!) })
            #expect(completed == ["ok", "broken", "limited"])
            let schedule = Dictionary(uniqueKeysWithValues: try await slow.schedule().map { ($0.feed, $0) })
            let ok = try #require(schedule["ok"]), broken = try #require(schedule["broken"])
            let limited = try #require(schedule["limited"]), stillHeld = try #require(schedule["lost"])
            #expect(ok.heldBy == nil && ok.failures == 0 && ok.lastError == nil)
            #expect(abs(ok.nextDueAt.timeIntervalSince(try #require(ok.lastPulledAt)) - 60) < 1)
            #expect(broken.heldBy == nil && broken.failures == 1 && broken.lastError == "HTTP 500")
            #expect(abs(broken.nextDueAt.timeIntervalSince(try #require(broken.lastPulledAt)) - 120) < 1)
            #expect(limited.failures == 1 && limited.lastError == "HTTP 429")
            #expect(abs(limited.nextDueAt.timeIntervalSince(reset)) < 0.01)
            #expect(stillHeld.heldBy == "other" && stillHeld.lastPulledAt == nil, "the lost lease was not completed: \(stillHeld)")
            #expect(try await slow.complete([]).isEmpty)
        }
    }

    @Test("next due: one interval after a success, doubling after failures, never before a rate limit's reset")
    func nextDueTimes() async throws {
        try await withCoordinationDatabase { client, _ in
            let worker = WorkerCoordinator(
                client: client, id: WorkerID("timer"), settings: CoordinationSettings(jitter: 0, maxBackoffFactor: 4),
                logger: testLogger)
            try await worker.declare(["f": .seconds(60)])
            func pull(_ outcome: PullOutcome) async throws -> (delay: Double, failures: Int) {
                try await worker.makeDue(["f"])
                let lease = try #require(try await worker.leaseDueFeeds(limit: 1).first)
                #expect(try await worker.complete(lease, outcome: outcome))
                let status = try #require(try await worker.schedule().first)
                let pulledAt = try #require(status.lastPulledAt)
                return (status.nextDueAt.timeIntervalSince(pulledAt), status.failures)
            }
            let failure = PullOutcome.failed(message: "HTTP 500", rateLimitedUntil: nil)
            let success = try await pull(.succeeded)
            #expect(abs(success.delay - 60) < 1 && success.failures == 0)
            let first = try await pull(failure)
            #expect(abs(first.delay - 120) < 1 && first.failures == 1)
            let second = try await pull(failure)
            #expect(abs(second.delay - 240) < 1 && second.failures == 2)
            let capped = try await pull(failure)
            #expect(abs(capped.delay - 240) < 1 && capped.failures == 3)  // 4 × the interval at most
            #expect(try await worker.schedule().first?.lastError == "HTTP 500")
            let reset = Date().addingTimeInterval(86_400)
            _ = try await pull(.failed(message: "rate limited", rateLimitedUntil: reset))
            let limited = try #require(try await worker.schedule().first)
            #expect(abs(limited.nextDueAt.timeIntervalSince(reset)) < 0.01)
            let recovered = try await pull(.succeeded)
            #expect(abs(recovered.delay - 60) < 1 && recovered.failures == 0)
            #expect(try await worker.schedule().first?.lastError == nil)
        }
    }
}

#endif
