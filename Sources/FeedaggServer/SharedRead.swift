import Synchronization

/// One read shared by every request waiting for it at once, never older than any of them: a
/// request is answered by a read that started after it arrived.
///
/// `feedagg serve` asks the store's change number on every first-page request (``RenderedPages``:
/// the kept page and a matching `If-None-Match` cost only that number). Under load — feed readers
/// polling, sixteen connections — each read would be a trip to a store thread (and a round trip on
/// PostgreSQL) for the same answer. Here one read runs at a time: requests arriving while it runs
/// wait for the next one, which starts as soon as it ends and answers all of them. A request never
/// gets a number read before it arrived, so a change committed before a request is always seen by
/// it (the same guarantee as a read of its own), and the reads per second are bounded by how fast
/// the store answers, not by how many requests come.
final class SharedRead<Value: Sendable, Failure: Error>: Sendable {
    private typealias Waiter = CheckedContinuation<Result<Value, Failure>, Never>

    private struct State {
        /// Whether a read (and the loop running the next ones) is under way.
        var running = false
        /// Requests that arrived since the running read started: the next read answers them.
        var waiting: [Waiter] = []
    }

    private let state = Mutex(State())
    private let body: @Sendable () async -> Result<Value, Failure>

    /// Reads by `body`, which runs once at a time.
    init(_ body: @escaping @Sendable () async throws(Failure) -> Value) {
        self.body = {
            do throws(Failure) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
    }

    /// The value of a read that started after this call did.
    func value() async throws(Failure) -> Value {
        let result = await withCheckedContinuation { (waiter: Waiter) in
            let starts = state.withLock { state in
                state.waiting.append(waiter)
                guard !state.running else { return false }
                state.running = true
                return true
            }
            if starts { Task { await self.readWhileWaited() } }
        }
        return try result.get()
    }

    /// How many requests wait for a read that has not started yet (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Reads for the waiting requests, batch after batch, until none waits.
    private func readWhileWaited() async {
        while true {
            // Taken before the read starts: every one of them arrived before it.
            let batch = state.withLock { state in
                let batch = state.waiting
                state.waiting = []
                if batch.isEmpty { state.running = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            let result = await body()
            for waiter in batch { waiter.resume(returning: result) }
        }
    }
}
