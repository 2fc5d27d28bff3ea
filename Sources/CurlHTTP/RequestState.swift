import CCurl
import FeedCore
import Foundation
import Synchronization

/// Where a request stands, as seen by the threads that submit and cancel it.
enum RequestState: Sendable {
    /// Registered by `send`, not yet handed over (its continuation does not exist yet).
    case registered
    /// Cancelled before it was handed over: `submit` refuses it.
    case cancelledEarly
    /// Handed over, not yet picked up by the loop thread.
    case queued(Submission)
    /// Owned by the loop thread (waiting for admission or running).
    case active
}
