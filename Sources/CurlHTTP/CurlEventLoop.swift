import CCurl
import FeedCore
import Foundation
import Synchronization

/// The continuation a ``CurlClient/send(_:)`` call is suspended on.
typealias ResponseContinuation = CheckedContinuation<HTTPResponse, any Error>

/// The event loop: the caller-facing operations (register, submit, cancel, shutdown) and the
/// thread that owns libcurl's multi handle.
final class CurlEventLoop: Sendable {
    /// The state shared with the loop thread.
    let state = Mutex(SharedState())
    /// Interrupts the loop thread's poll.
    let wakeup = MultiWakeup()
    /// Signalled when the loop thread has exited.
    private let exited = NSCondition()

    /// Starts the loop thread, which creates the multi handle.
    init(configuration: CurlClient.Configuration, onTransfer: (@Sendable (CurlClient.TransferMetrics) -> Void)?) {
        let thread = Thread { [self] in
            if let worker = CurlLoopWorker(loop: self, configuration: configuration, onTransfer: onTransfer) {
                worker.run()
            }
            state.withLock { $0.loopExited = true }
            exited.lock()
            exited.broadcast()
            exited.unlock()
        }
        thread.name = "feedagg-curl"
        thread.start()
    }

    /// Reserves an identifier for a new request to `url`, or throws why no request is accepted.
    func register(_ url: URL) throws(TransportError) -> UInt64 {
        let outcome: (id: UInt64?, refusal: String?) = state.withLock { state in
            if let failure = state.initFailure { return (nil, "libcurl could not be initialised (\(failure))") }
            if state.isShutDown { return (nil, "the HTTP client has been shut down") }
            state.lastID += 1
            state.requests[state.lastID] = .registered
            return (state.lastID, nil)
        }
        guard let id = outcome.id else {
            throw TransportError(kind: .other, url: url, detail: outcome.refusal ?? "request refused")
        }
        return id
    }

    /// Hands `submission` to the loop thread; returns why it was refused instead (its continuation
    /// has not been resumed in that case).
    func submit(_ submission: Submission) -> TransportError? {
        let refusal: TransportError? = state.withLock { state in
            let url = submission.request.url
            switch state.requests[submission.id] {
            case .registered? where !state.isShutDown:
                state.requests[submission.id] = .queued(submission)
                state.submissionOrder.append(submission.id)
                return nil
            case .cancelledEarly?:
                state.requests[submission.id] = nil
                return TransportError(kind: .cancelled, url: url, detail: "request was cancelled")
            default:
                state.requests[submission.id] = nil
                let detail = state.initFailure.map { "libcurl could not be initialised (\($0))" }
                return TransportError(kind: .other, url: url, detail: detail ?? "the HTTP client has been shut down")
            }
        }
        if refusal == nil { wakeup.wake() }
        return refusal
    }

    /// Cancels request `id` wherever it is; a request that has finished is left alone.
    func cancel(_ id: UInt64) {
        enum Action { case none, wake, resume(Submission) }
        let action: Action = state.withLock { state in
            switch state.requests[id] {
            case .registered?:
                state.requests[id] = .cancelledEarly
                return .none
            case .queued(let submission)?:
                state.requests[id] = nil
                return .resume(submission)
            case .active?:
                state.cancellations.append(id)
                return .wake
            case .cancelledEarly?, nil:
                return .none
            }
        }
        switch action {
        case .none: break
        case .wake: wakeup.wake()
        case .resume(let submission):
            submission.continuation.resume(
                throwing: TransportError(kind: .cancelled, url: submission.request.url, detail: "request was cancelled"))
        }
    }

    /// Stops the loop thread, failing whatever is still pending, and waits for it to exit
    /// (unless called on the loop thread itself). Idempotent.
    func shutdown() {
        let onLoopThread = state.withLock { state in
            state.isShutDown = true
            return state.loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
        wakeup.wake()
        guard !onLoopThread else { return }
        exited.lock()
        while !state.withLock({ $0.loopExited }) { exited.wait() }
        exited.unlock()
    }
}
