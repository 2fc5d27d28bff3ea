// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import FeedaggTesting
import Foundation
import PostgresNIO
import Synchronization
import Testing
import WorkerCoordination

/// Wake-ups counted per listener.
private final class Wakes: Sendable {
    private let counts = Mutex([0, 0])
    func add(_ index: Int) { counts.withLock { $0[index] += 1 } }
    var current: [Int] { counts.withLock { $0 } }
}

@Suite("Worker coordination: feeds made due wake every listening worker")
struct DueNotificationTests {
    @Test("makeDue through one worker wakes the others' listeners, once per call; cancelling ends a listener")
    func makeDueWakesListeners() async throws {
        try await withCoordinationDatabase { client, _ in
            let asker = WorkerCoordinator(client: client, id: WorkerID("asker"), logger: testLogger)
            try await asker.declare(feeds(3))
            let wakes = Wakes()
            let listeners = (0..<2).map { index in
                let worker = WorkerCoordinator(client: client, id: WorkerID("listener-\(index)"), logger: testLogger)
                return Task { try await worker.listenForDueFeeds { wakes.add(index) } }
            }
            // A listener is in place once a notification reaches it: ask until both have one.
            let first = try await poll(timeout: .seconds(120)) { () -> Bool? in
                try await asker.makeDue(["feed-000"])
                try await Task.sleep(for: .milliseconds(200))
                return wakes.current.allSatisfy { $0 > 0 } ? true : nil
            }
            #expect(first == true, "a listener never woke")
            // The polls' notifications may still be arriving: start counting once none came for 1 s.
            var before = wakes.current
            while true {
                try await Task.sleep(for: .seconds(1))
                let now = wakes.current
                if now == before { break }
                before = now
            }
            try await asker.makeDue(["feed-001", "feed-002"])
            try await asker.makeDue(["feed-000"])
            let both = try await poll(timeout: .seconds(60)) { () -> Bool? in
                zip(wakes.current, before).allSatisfy { $0 >= $1 + 2 } ? true : nil
            }
            #expect(both == true, "each makeDue wakes each listener: \(wakes.current) after \(before)")
            // Once per call: two calls (one of them for two feeds) are two wakes, not more.
            try await Task.sleep(for: .seconds(2))
            #expect(zip(wakes.current, before).allSatisfy { $0 == $1 + 2 }, "two calls, two wakes each: \(wakes.current) after \(before)")
            for listener in listeners { listener.cancel() }
            for listener in listeners { try await listener.value }
        }
    }
}

#endif
