@testable import FeedaggServer
import Foundation
import Synchronization
import Testing

/// ``SharedRead``: requests waiting at once share one read, and no request is answered by a read
/// that started before it arrived.
@Suite("the change number's shared reads")
struct SharedReadTests {
    /// A read that counts its starts and waits until the test opens it.
    final class GatedReads: Sendable {
        private struct State {
            var started = 0
            var gates: [CheckedContinuation<Void, Never>] = []
            var fail = false
        }
        private let state = Mutex(State())

        /// Starts a read: its number (1, 2, …), answered once ``open()`` lets it finish.
        func read() async throws(ReadFailed) -> Int {
            let number = state.withLock { state -> Int in
                state.started += 1
                return state.started
            }
            await withCheckedContinuation { gate in state.withLock { $0.gates.append(gate) } }
            if state.withLock({ $0.fail }) { throw ReadFailed(number: number) }
            return number
        }

        var started: Int { state.withLock { $0.started } }
        var blocked: Int { state.withLock { $0.gates.count } }
        func failing(_ fail: Bool) { state.withLock { $0.fail = fail } }

        /// Lets every read that waits finish.
        func open() {
            let gates = state.withLock { state in
                defer { state.gates = [] }
                return state.gates
            }
            for gate in gates { gate.resume() }
        }
    }

    struct ReadFailed: Error, Equatable { var number: Int }

    static func eventually(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("never happened: \(what)")
                throw ReadFailed(number: -1)
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test("requests arriving during a read wait for the next one, and all of them share it")
    func arrivalsDuringAReadShareTheNext() async throws {
        let reads = GatedReads()
        let shared = SharedRead<Int, ReadFailed> { () async throws(ReadFailed) -> Int in try await reads.read() }
        let first = Task { try await shared.value() }
        try await Self.eventually("the first read started") { reads.blocked == 1 }
        // Five requests arrive while read 1 runs: a change committed now is one read 1 may miss.
        let later = (0..<5).map { _ in Task { try await shared.value() } }
        try await Self.eventually("five waiting") { shared.waitingCount == 5 }
        reads.open()
        #expect(try await first.value == 1)
        try await Self.eventually("the second read started") { reads.blocked == 1 }
        #expect(reads.started == 2, "one read for the five")
        reads.open()
        for request in later { #expect(try await request.value == 2, "answered by a read started after it arrived") }
        #expect(reads.started == 2)
        #expect(shared.waitingCount == 0)

        // Idle again: the next request starts a read of its own at once.
        let next = Task { try await shared.value() }
        try await Self.eventually("a third read") { reads.blocked == 1 }
        reads.open()
        #expect(try await next.value == 3)
    }

    @Test("a failed read fails every request it answers, and the next read is tried anew")
    func failureReachesTheBatch() async throws {
        let reads = GatedReads()
        let shared = SharedRead<Int, ReadFailed> { () async throws(ReadFailed) -> Int in try await reads.read() }
        reads.failing(true)
        let requests = (0..<3).map { _ in Task { () async -> Result<Int, ReadFailed> in
            do throws(ReadFailed) { return .success(try await shared.value()) } catch { return .failure(error) }
        } }
        // Opened until every request is answered, however the three arrive relative to the reads.
        let opener = Task {
            while !Task.isCancelled {
                reads.open()
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        for request in requests {
            if case .success(let number) = await request.value { Issue.record("a request of a failed read got \(number)") }
        }
        opener.cancel()
        _ = await opener.value
        reads.failing(false)
        let after = Task { try await shared.value() }
        try await Self.eventually("a new read") { reads.blocked == 1 }
        reads.open()
        #expect(try await after.value == reads.started)
    }
}
