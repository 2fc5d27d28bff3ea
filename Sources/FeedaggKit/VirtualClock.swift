import FeedCore
import Foundation
import Synchronization

/// A test-only clock for the `feedagg` binary: with `FEEDAGG_TEST_CLOCK=virtual` (or
/// `virtual@EPOCH`, to start at `EPOCH` seconds) in the environment, waits for rate limits and
/// retries advance this clock at once instead of sleeping, and rate-limit times and messages use
/// it. End-to-end tests use it to run the real binary against scripted rate limits without
/// waiting. Any other value, or none, leaves the real clock in place.
final class VirtualClock: Sendable {
    /// The environment variable that turns it on.
    static let variable = "FEEDAGG_TEST_CLOCK"

    private let current: Mutex<Date>

    /// The clock `environment` asks for, or `nil` (the real clock).
    init?(environment: [String: String]) {
        guard let value = environment[Self.variable] else { return nil }
        if value == "virtual" {
            current = Mutex(Date())
        } else if value.hasPrefix("virtual@"), let epoch = Double(value.dropFirst("virtual@".count)) {
            current = Mutex(Date(timeIntervalSince1970: epoch))
        } else {
            return nil
        }
    }

    /// The virtual now.
    var now: Date { current.withLock { $0 } }

    /// Advances the clock by `duration` (no real time passes).
    func sleep(_ duration: Duration) throws {
        try Task.checkCancellation()
        let seconds = duration.seconds
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
