@testable import FeedaggServer
import Foundation
import Synchronization
import Testing

/// ``AwaitedReadLimit``: no more reads at once than its permits, the others in arrival order, and
/// a read that fails gives its permit back.
@Suite("the limit of page reads awaited at once")
struct AwaitedReadLimitTests {
    /// Reads that wait until the test opens each one, recording the order they started in.
    final class Gates: Sendable {
        private struct State {
            var running = 0
            var mostAtOnce = 0
            var started: [Int] = []
            var gates: [Int: CheckedContinuation<Void, Never>] = [:]
        }
        private let state = Mutex(State())

        func read(_ number: Int, failing: Bool = false) async throws -> Int {
            state.withLock { state in
                state.running += 1
                state.mostAtOnce = max(state.mostAtOnce, state.running)
                state.started.append(number)
            }
            await withCheckedContinuation { gate in state.withLock { $0.gates[number] = gate } }
            state.withLock { $0.running -= 1 }
            if failing { throw Failed() }
            return number
        }

        var started: [Int] { state.withLock { $0.started } }
        var waiting: Set<Int> { state.withLock { Set($0.gates.keys) } }
        var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }

        func open(_ number: Int) {
            state.withLock { $0.gates.removeValue(forKey: number) }?.resume()
        }
    }

    struct Failed: Error {}

    static func eventually(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("never happened: \(what)")
                throw Failed()
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test("two permits: reads 3 to 6 wait, and start in the order they asked as permits come back, a failed read's too")
    func fifoWithinTheLimit() async throws {
        let limit = AwaitedReadLimit(permits: 2)
        let gates = Gates()
        var tasks: [Task<Int?, Never>] = []
        for number in 1...6 {
            tasks.append(Task { try? await limit.run(timeout: .seconds(60)) { try await gates.read(number, failing: number == 2) } })
            // Each asks after the one before is running or waiting its turn.
            if number <= 2 {
                try await Self.eventually("read \(number) runs") { gates.waiting.contains(number) }
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(gates.started == [1, 2], "only two run at once")
        gates.open(2)  // fails: its permit goes to 3
        try await Self.eventually("read 3 runs") { gates.waiting.contains(3) }
        gates.open(1)
        try await Self.eventually("read 4 runs") { gates.waiting.contains(4) }
        gates.open(4)
        try await Self.eventually("read 5 runs") { gates.waiting.contains(5) }
        gates.open(3)
        try await Self.eventually("read 6 runs") { gates.waiting.contains(6) }
        gates.open(5)
        gates.open(6)
        var results: [Int?] = []
        for task in tasks { results.append(await task.value) }
        #expect(results == [1, nil, 3, 4, 5, 6])
        #expect(gates.started == [1, 2, 3, 4, 5, 6], "in the order they asked")
        #expect(gates.mostAtOnce == 2)
    }

    @Test("a read whose turn comes only after the timeout does not run: it fails at once, and the next one runs")
    func turnAfterTheTimeout() async throws {
        let limit = AwaitedReadLimit(permits: 1)
        let gates = Gates()
        let first = Task { try await limit.run(timeout: .seconds(60)) { try await gates.read(1) } }
        try await Self.eventually("read 1 runs") { gates.waiting.contains(1) }
        let late = Task { try await limit.run(timeout: .milliseconds(200)) { try await gates.read(2) } }
        try await Task.sleep(for: .milliseconds(400))
        gates.open(1)
        #expect(try await first.value == 1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(gates.started == [1], "the late read never ran")
        gates.open(2)  // (lets it end, had it run)
        await #expect(throws: StoreReadPool.Timeout.self) { try await late.value }
        let next = Task { try await limit.run(timeout: .seconds(60)) { try await gates.read(3) } }
        try await Self.eventually("read 3 runs: the late read gave its permit back") { gates.waiting.contains(3) }
        gates.open(3)
        #expect(try await next.value == 3)
    }
}
