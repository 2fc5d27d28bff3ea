import Synchronization

/// At most ``limit`` requests handled at once; the next ones wait in line for a moment, then are
/// turned away (``AdmissionMiddleware`` answers 503). A slot freed by a finished request goes
/// straight to the longest waiting one.
final class AdmissionGate: Sendable {
    private struct State {
        var inFlight = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
    }

    /// Requests handled at once.
    let limit: Int
    /// Requests that may wait for a slot at once (more are turned away at once).
    let queueLimit: Int
    private let state = Mutex(State())

    /// A gate of `limit` slots with a line of at most `queueLimit` waiting requests.
    init(limit: Int, queueLimit: Int) {
        self.limit = max(1, limit)
        self.queueLimit = max(0, queueLimit)
    }

    /// Takes a slot, waiting at most `patience` for one; `false` when none came in time (the
    /// caller then must not call ``leave()``).
    func enter(waitingAtMost patience: Duration) async -> Bool {
        let immediate = state.withLock { state -> Bool in
            guard state.inFlight < limit else { return false }
            state.inFlight += 1
            return true
        }
        if immediate { return true }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Patience ran out: a waiter still in line is turned away.
                if (try? await Task.sleep(for: patience)) != nil { self.expire(id) }
            }
            let admitted = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer = state.withLock { state -> Bool? in
                    if state.inFlight < limit {
                        state.inFlight += 1
                        return true
                    }
                    guard state.waiters.count < queueLimit else { return false }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
            group.cancelAll()
            return admitted
        }
    }

    /// Frees the slot ``enter(waitingAtMost:)`` took (it passes to the first waiter, if any).
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst().continuation }
            state.inFlight -= 1
            return nil
        }
        next?.resume(returning: true)
    }

    /// Requests being handled now.
    var inFlight: Int { state.withLock { $0.inFlight } }

    /// Requests waiting in line now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    private func expire(_ id: UInt64) {
        let expired = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index).continuation
        }
        expired?.resume(returning: false)
    }
}
