import FeedStorage
import Synchronization
import Testing

/// `SharedReads`: concurrent askers of one key share one read; a failed read hands its waiters
/// `nil`; keys are apart.
@Suite("Shared reads of a term")
struct SharedReadsTests {
    /// Counts reads, and holds each read until `release` is called.
    final class Gate: Sendable {
        let reads = Atomic<Int>(0)
        private let released = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func read(_ value: Int, fail: Bool = false) async throws -> Int? {
            reads.add(1, ordering: .relaxed)
            await withCheckedContinuation { continuation in
                let open = released.withLock { state in
                    if !state.open { state.waiting.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
            if fail { throw CancellationError() }
            return value
        }

        func release() {
            let waiting = released.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    @Test("eight askers at once: one read, every asker gets its value")
    func oneRead() async throws {
        let reads = SharedReads<Int>()
        let gate = Gate()
        let values = try await withThrowingTaskGroup(of: Int?.self) { group in
            for _ in 0..<8 {
                group.addTask { try await reads.value(of: "swift") { try await gate.read(42) } }
            }
            // Every asker has asked: the first is reading, held at the gate, the others wait.
            let deadline = ContinuousClock.now + .seconds(30)
            while reads.waiters(of: "swift") < 7, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            gate.release()
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(gate.reads.load(ordering: .relaxed) == 1)
        #expect(values == Array(repeating: 42, count: 8))
        // Done: the next asker reads again.
        #expect(try await reads.value(of: "swift") { 7 } == 7)
    }

    @Test("a failed read: its asker gets the error, the waiters nil; another key is read apart")
    func failure() async throws {
        let reads = SharedReads<Int>()
        let gate = Gate()
        let first = Task { try await reads.value(of: "rust") { try await gate.read(1, fail: true) } }
        while gate.reads.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let waiter = Task { try await reads.value(of: "rust") { Issue.record("read twice"); return 2 } }
        let deadline = ContinuousClock.now + .seconds(30)
        while reads.waiters(of: "rust") < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try await reads.value(of: "go") { 3 } == 3)
        gate.release()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(try await waiter.value == nil)
    }
}
