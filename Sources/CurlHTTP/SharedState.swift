import CCurl
import FeedCore
import Foundation
import Synchronization

/// What callers and the loop thread share, behind a `Mutex`.
struct SharedState {
    /// Why the client cannot work, when libcurl could not be initialised.
    var initFailure: String?
    /// Set by `shutdown()`; no request is accepted afterwards.
    var isShutDown = false
    /// Set by the loop thread when it has exited.
    var loopExited = false
    /// The loop thread, so `shutdown()` called from a callback does not wait for itself.
    var loopThread: pthread_t?
    /// The last identifier handed out.
    var lastID: UInt64 = 0
    /// Every request between registration and completion.
    var requests: [UInt64: RequestState] = [:]
    /// Identifiers of queued requests, in submission order (entries no longer queued are skipped).
    var submissionOrder: [UInt64] = []
    /// Identifiers of active requests whose task was cancelled.
    var cancellations: [UInt64] = []
}
