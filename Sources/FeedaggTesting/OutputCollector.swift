import Foundation
import Synchronization

/// Reads a pipe to its end on a thread of its own, keeping everything read, and tells waiters
/// when a marker line has appeared (or the pipe has ended).
final class OutputCollector: Sendable {
    private struct State {
        var data = Data()
        var ready = false
        var ended = false
        var gaveUp = false
        var readyWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let endSignal = DispatchSemaphore(value: 0)
    private let readyMarker: String?

    init(readyMarker: String? = nil) {
        self.readyMarker = readyMarker
    }

    /// Everything read so far, as UTF-8.
    var text: String { state.withLock { String(decoding: $0.data, as: UTF8.self) } }

    /// Everything read so far.
    var data: Data { state.withLock { $0.data } }

    /// Starts reading `handle` until end of file on a dedicated thread.
    func drain(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                append(chunk)
            }
            finish()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func append(_ chunk: Data) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.data.append(chunk)
            guard !state.ready, let marker = readyMarker else { return [] }
            let text = String(decoding: state.data, as: UTF8.self)
            // Ready once a whole line starting with the marker has arrived.
            let found = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains {
                $0.hasPrefix(marker)
            }
            guard found else { return [] }
            state.ready = true
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ended = true
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        for waiter in waiters { waiter.resume() }
        endSignal.signal()
    }

    /// Waits until the marker line has been read (true), or the pipe ended or `timeout` passed (false).
    func waitUntilReady(timeout: Duration) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = self.state.withLock { state -> Bool in
                        if state.ready || state.ended || state.gaveUp { return true }
                        state.readyWaiters.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            group.addTask {
                // A deadline for a child process that never answers, not a timing assumption.
                try? await Task.sleep(for: timeout)
            }
            await group.next()
            group.cancelAll()
            // Release the waiter if the deadline won, so the group can finish.
            let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.gaveUp = true
                defer { state.readyWaiters = [] }
                return state.readyWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
        return state.withLock { $0.ready }
    }

    /// Blocks until the pipe has ended (the child closed it, normally by exiting). Idempotent.
    func waitForEnd() {
        endSignal.wait()
        endSignal.signal()
    }
}
