// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedaggTesting
import Foundation
import PostgresNIO
import Testing
import WorkerCoordination

/// The registry, the per-host budget, shared rate-limit pauses and the status, on the real cluster.
@Suite("Worker coordination: registry, budget, pauses")
struct RegistryTests {
    @Test("max_connections_per_host is divided among live workers, at least one each")
    func connectionBudget() async throws {
        try await withCoordinationDatabase { client, _ in
            let settings = CoordinationSettings(maxConnectionsPerHost: 8)
            let workers = (0..<3).map {
                WorkerCoordinator(client: client, id: WorkerID("budget-\($0)"), settings: settings, logger: testLogger)
            }
            for worker in workers { try await worker.register() }
            for worker in workers { #expect(try await worker.connectionsPerHost() == 2) }  // 8 / 3, rounded down
            try await workers[2].unregister()
            #expect(try await workers[0].connectionsPerHost() == 4)
            let tight = WorkerCoordinator(
                client: client, id: WorkerID("budget-0"), settings: CoordinationSettings(maxConnectionsPerHost: 1),
                logger: testLogger)
            #expect(try await tight.connectionsPerHost() == 1)  // 1 / 2 workers: still one
        }
    }

    @Test("a worker that stops beating is no longer live, and its share goes back to the others")
    func staleWorker() async throws {
        try await withCoordinationDatabase { client, _ in
            // 30 s: long enough that `alive`, beating between reads, never looks stale on a loaded
            // machine (2 s was not: a full run once took longer than that between its beat and the
            // read; 10 s was not either, once, in a full run of 2026-11-29 at 286 s, with the test
            // process's two cooperative threads shared by every suite running at the time).
            let settings = CoordinationSettings(workerTimeout: .seconds(30), maxConnectionsPerHost: 6)
            let alive = WorkerCoordinator(client: client, id: WorkerID("alive"), settings: settings, logger: testLogger)
            let gone = WorkerCoordinator(client: client, id: WorkerID("gone"), settings: settings, logger: testLogger)
            try await gone.register()
            try await alive.register()
            // `gone` never beats again; `alive` does, until it is alone.
            let alone = try await poll {
                try await alive.heartbeat() == 1 ? true : nil
            }
            #expect(alone == true)
            #expect(try await alive.connectionsPerHost() == 6)
            // A beat, then the registry: `alive` reads as live. Asked again while it does not:
            // two full runs (bounds 10 s and 30 s) each saw one read more than the bound after the
            // beat before it, at 286 s and 301 s into the run; a registry that never counts a
            // beating worker live still fails here, after a minute.
            let seen = try await poll(timeout: .seconds(60)) {
                _ = try await alive.heartbeat()
                let registry = try await alive.workers()
                return registry.first { $0.id == "alive" }?.live == true ? registry : nil
            }
            let registry = try #require(seen, "`alive` never read as live right after its own beat")
            #expect(registry.first { $0.id == "gone" }?.live == false)
        }
    }

    @Test("a rate-limit pause recorded by one worker is seen by another, for that origin and credential only")
    func sharedPause() async throws {
        try await withCoordinationDatabase { client, _ in
            let first = WorkerCoordinator(client: client, id: WorkerID("first"), logger: testLogger)
            let second = WorkerCoordinator(client: client, id: WorkerID("second"), logger: testLogger)
            let origin = "http://127.0.0.1:40001"
            let until = Date().addingTimeInterval(120)
            #expect(try await second.pause(origin: origin, credential: "key-a") == nil)
            try await first.recordPause(origin: origin, credential: "key-a", until: until, setBy: "repos")
            let seen = try #require(try await second.pause(origin: origin, credential: "key-a"))
            #expect(abs(seen.until.timeIntervalSince(until)) < 0.01)
            #expect(seen.setBy == "repos")
            #expect(try await second.pause(origin: origin, credential: "key-b") == nil)
            #expect(try await second.pause(origin: "http://127.0.0.1:40002", credential: "key-a") == nil)
            // A shorter pause recorded later does not shorten it; a longer one extends it.
            try await second.recordPause(origin: origin, credential: "key-a", until: until.addingTimeInterval(-60), setBy: "gists")
            #expect(try await first.pause(origin: origin, credential: "key-a")?.setBy == "repos")
            try await second.recordPause(origin: origin, credential: "key-a", until: until.addingTimeInterval(60), setBy: "gists")
            #expect(try await first.pause(origin: origin, credential: "key-a")?.setBy == "gists")
            // A pause that has ended is no pause.
            try await first.recordPause(origin: origin, credential: "", until: Date().addingTimeInterval(-1), setBy: "old")
            #expect(try await second.pause(origin: origin, credential: "") == nil)
        }
    }

    @Test("the schedule shows who holds which feed and when each is due next")
    func status() async throws {
        try await withCoordinationDatabase { client, _ in
            let worker = WorkerCoordinator(client: client, id: WorkerID("holder"), logger: testLogger)
            try await worker.declare(["a": .seconds(60), "b": .seconds(60)])
            let lease = try #require(try await worker.leaseDueFeeds(limit: 1).first)
            #expect(lease.feed == "a")
            let schedule = try await worker.schedule()
            #expect(schedule.map(\.feed) == ["a", "b"])
            #expect(schedule[0].heldBy == "holder" && schedule[0].leaseExpiresAt == lease.expiresAt)
            #expect(schedule[1].heldBy == nil && schedule[1].lastPulledAt == nil)
            #expect(try await worker.complete(lease, outcome: .succeeded))
            let after = try await worker.schedule()
            #expect(after[0].heldBy == nil && after[0].nextDueAt > after[1].nextDueAt)
        }
    }

    @Test("an error names the operation and the worker")
    func errorsCarryContext() async throws {
        let cluster = try await PostgresCluster.shared()
        let database = try await cluster.createDatabase("unmigrated")
        let client = makeClient(database)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let worker = WorkerCoordinator(client: client, id: WorkerID("lost"), logger: testLogger)
            do {
                _ = try await worker.leaseDueFeeds(limit: 1)
                Issue.record("leasing without the tables succeeded")
            } catch let error as CoordinationError {
                #expect(error.operation == "leasing due feeds")
                #expect(error.worker == "lost")
                #expect(error.cause.contains("feed_leases"), "\(error.cause)")
            }
        }
    }
}

#endif
