import Synchronization

/// Whether the HTTP server listens yet: the scheduler starts pulling only once it does, so a
/// `--listen` address that cannot be bound stops the process before anything is fetched. Also
/// whether a graceful shutdown was asked for (SIGTERM, SIGINT): what ends the run after that is
/// the shutdown, not a failure.
final class ServerReadiness: Sendable {
    private struct State {
        var ready = false
        var stopping = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Whether the server listens.
    var isReady: Bool { state.withLock { $0.ready } }

    /// Whether a graceful shutdown was asked for.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Notes that a graceful shutdown was asked for.
    func markStopping() {
        state.withLock { $0.stopping = true }
    }

    /// Marks the server as listening and wakes every waiter.
    func markReady() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ready = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until the server listens (`true`) or the task is cancelled first (`false`).
    func wait() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.ready || Task.isCancelled { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        return state.withLock { $0.ready } && !Task.isCancelled
    }
}
