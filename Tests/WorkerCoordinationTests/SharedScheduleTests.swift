// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedaggTesting
import Foundation
import Testing
import WorkerCoordination

/// What `feedagg serve` needs of the shared schedule beyond plain leases: leasing only the feeds
/// a worker declares, pauses that hold back every worker's feeds of an origin, a refresh asked
/// for during a pull, and a credential digest that every process computes alike.
@Suite("Worker coordination: what serve uses")
struct SharedScheduleTests {
    @Test("a worker leases only the feeds it names, so workers with different feeds.yaml do not pull each other's")
    func leasesAmongDeclared() async throws {
        try await withCoordinationDatabase { client, _ in
            let worker = WorkerCoordinator(client: client, id: WorkerID("picky"), logger: testLogger)
            try await worker.declare(feeds(6))
            let mine = try await worker.leaseDueFeeds(limit: 10, among: ["feed-001", "feed-004", "not-declared"])
            #expect(mine.map(\.feed) == ["feed-001", "feed-004"])
            #expect(try await worker.leaseDueFeeds(limit: 10, among: []).isEmpty)
            #expect(try await worker.leaseDueFeeds(limit: 10).count == 4)
        }
    }

    @Test("a pause of an origin and credential holds back those feeds for every worker until it ends")
    func pauseHoldsBackLeases() async throws {
        try await withCoordinationDatabase { client, _ in
            let first = WorkerCoordinator(client: client, id: WorkerID("first"), logger: testLogger)
            let second = WorkerCoordinator(client: client, id: WorkerID("second"), logger: testLogger)
            let key = DeclaredFeed.credentialDigest(["authorization:token a"])
            try await first.declare([
                DeclaredFeed(name: "limited", interval: .seconds(60), origin: "127.0.0.1:1001", credential: key),
                DeclaredFeed(name: "other-token", interval: .seconds(60), origin: "127.0.0.1:1001", credential: ""),
                DeclaredFeed(name: "other-host", interval: .seconds(60), origin: "127.0.0.1:1002", credential: key),
            ])
            try await first.recordPause(
                origin: "127.0.0.1:1001", credential: key, until: Date().addingTimeInterval(3), setBy: "limited")
            let during = try await second.leaseDueFeeds(limit: 10)
            #expect(during.map(\.feed) == ["other-host", "other-token"])
            // After the reset (the database's clock) the paused feed is leased again.
            let after = try await poll(timeout: .seconds(120)) { try await second.leaseDueFeeds(limit: 10).first }
            #expect(after?.feed == "limited")
        }
    }

    @Test("a refresh asked for while a feed is pulled makes it due again as soon as that pull completes")
    func refreshDuringPull() async throws {
        try await withCoordinationDatabase { client, _ in
            let worker = WorkerCoordinator(
                client: client, id: WorkerID("busy"), settings: CoordinationSettings(jitter: 0), logger: testLogger)
            try await worker.declare(["f": .seconds(3600)])
            let lease = try #require(try await worker.leaseDueFeeds(limit: 1).first)
            let requested = try await worker.makeDue(["f"])
            #expect(try await worker.schedule().first?.answered(since: requested) == false)
            #expect(try await worker.complete(lease, outcome: .succeeded))
            // That pull started before the request: not an answer, and the feed is due again.
            #expect(try await worker.schedule().first?.answered(since: requested) == false)
            let again = try #require(try await worker.leaseDueFeeds(limit: 1).first)
            #expect(try await worker.complete(again, outcome: .succeeded))
            let status = try #require(try await worker.schedule().first)
            #expect(status.answered(since: requested))
            #expect(status.nextDueAt.timeIntervalSince(try #require(status.lastPulledAt)) > 3000)
        }
    }

    @Test("the credential digest is SHA-256 of the sorted secrets: the same in every process, never the secret")
    func credentialDigest() {
        #expect(DeclaredFeed.credentialDigest([]) == "")
        // SHA-256("abc"), FIPS 180-2's example.
        #expect(DeclaredFeed.credentialDigest(["abc"]) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(DeclaredFeed.credentialDigest(["b", "a"]) == DeclaredFeed.credentialDigest(["a", "b"]))
        #expect(!DeclaredFeed.credentialDigest(["authorization:token secret"]).contains("secret"))
    }
}

#endif
