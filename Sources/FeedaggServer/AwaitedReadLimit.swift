import Synchronization

/// At most a number of awaited store reads at once; the others wait their turn in arrival order.
///
/// A page read on a store thread (``StoreReadPool``) is bounded by the pool's threads. A page the
/// store reads awaited on the request's task (PostgreSQL's one-statement pages) would otherwise
/// be bounded only by the store's connections: with sixteen readers of broad searches, nine
/// statements at once on two cores shared with the server gave the slowest requests twice the
/// waits of four at once, for no more pages a second.
final class AwaitedReadLimit: Sendable {
    private struct State {
        var available: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// A limit of `permits` reads at once.
    init(permits: Int) {
        state = Mutex(State(available: max(1, permits)))
    }

    /// Runs `body` once fewer than the limit run, after those that asked before; throws
    /// ``StoreReadPool/Timeout`` without running it when its turn came only after `timeout` (the
    /// reads before it ran into the store's own limit: a stuck store then answers every waiting
    /// request within about `timeout`, as ``StoreReadPool`` does, not one limit's worth of reads
    /// after another).
    func run<T: Sendable>(timeout: Duration, _ body: () async throws -> T) async throws -> T {
        let asked = ContinuousClock.now
        await acquire()
        defer { release() }
        if ContinuousClock.now - asked >= timeout { throw StoreReadPool.Timeout(limit: timeout) }
        return try await body()
    }

    private func acquire() async {
        let granted = state.withLock { state in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
        if granted { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                // Released meanwhile: take the permit at once.
                guard state.available == 0 else {
                    state.available -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Hands the permit to the first waiting read, or puts it back.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
