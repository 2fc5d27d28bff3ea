import Foundation
import Synchronization

/// Counts failed bearer tokens per client address over the last minute: past ``limit`` of them the
/// address is answered 429 until its oldest failure is a minute old, so a token cannot be guessed
/// at network speed. At most ``maximumAddresses`` addresses are remembered (the oldest forgotten).
final class AuthFailureLimiter: Sendable {
    /// Failures allowed per address per ``window``.
    let limit: Int
    /// The window failures are counted over.
    let window: TimeInterval
    /// Addresses remembered at once.
    static let maximumAddresses = 4096
    private let failures = Mutex<[String: [Date]]>([:])

    /// A limiter of `limit` failures per `window` seconds.
    init(limit: Int = 10, window: TimeInterval = 60) {
        self.limit = limit
        self.window = window
    }

    /// The seconds `address` must wait before trying again, or `nil` when it may try now.
    func retryAfter(_ address: String, now: Date = Date()) -> Int? {
        failures.withLock { failures -> Int? in
            let recent = (failures[address] ?? []).filter { now.timeIntervalSince($0) < window }
            failures[address] = recent.isEmpty ? nil : recent
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
    }

    /// Records a failed token from `address`; returns how many it sent in the window.
    @discardableResult
    func recordFailure(_ address: String, now: Date = Date()) -> Int {
        failures.withLock { failures -> Int in
            if failures[address] == nil, failures.count >= Self.maximumAddresses {
                // Forget the address whose last failure is oldest.
                if let stalest = failures.min(by: { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }) {
                    failures[stalest.key] = nil
                }
            }
            var recent = (failures[address] ?? []).filter { now.timeIntervalSince($0) < window }
            recent.append(now)
            failures[address] = recent
            return recent.count
        }
    }
}
