import CCurl
import FeedCore
import Foundation
import Synchronization

/// A request handed from a caller to the loop thread.
struct Submission: Sendable {
    /// The client-wide identifier used for cancellation.
    let id: UInt64
    /// The request as given.
    let request: HTTPRequest
    /// Resumed exactly once, by whichever side finishes the request.
    let continuation: ResponseContinuation
    /// When the request entered the client's queue.
    let submittedAt: ContinuousClock.Instant
}
