public import Foundation
import Synchronization

/// How the engine treats API rate limits (GitHub's `X-RateLimit-*` headers, `Retry-After`, 429).
///
/// A response is a rate limit when it is a `429`, or a `403` that carries `X-RateLimit-Remaining: 0`,
/// a `Retry-After`, or a message about a (secondary) rate limit. Then every request to that host
/// waits until the limit resets — `Retry-After`, else `X-RateLimit-Reset`, else ``defaultPause``
/// — if that is within ``maxWait``; otherwise the feed stops with a message saying when to pull
/// again. Before the limit is hit, when fewer than ``slowDownBelow`` requests remain, requests to
/// the host are spread evenly until the reset instead of spending the rest at once. Any other
/// `403` is reported at once as what it is (bad credentials, missing `User-Agent`, forbidden).
public struct RateLimitPolicy: Sendable {
    /// The longest the engine waits for a limit to reset (`rate_limit_wait`).
    public var maxWait: Duration
    /// Remaining requests below which requests are spread until the reset.
    public var slowDownBelow: Int
    /// The pause after a rate limit that says nothing about when it ends.
    public var defaultPause: Duration
    /// The wall clock (`X-RateLimit-Reset` is epoch seconds).
    public var now: @Sendable () -> Date
    /// Waits (tests inject a clock that advances ``now`` instead of sleeping).
    public var sleep: @Sendable (Duration) async throws -> Void

    /// Creates a policy: wait at most 60 s, slow down below 10 remaining, 60 s default pause.
    public init(
        maxWait: Duration = .seconds(60), slowDownBelow: Int = 10, defaultPause: Duration = .seconds(60),
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.maxWait = maxWait
        self.slowDownBelow = slowDownBelow
        self.defaultPause = defaultPause
        self.now = now
        self.sleep = sleep
    }

    /// Whether `response` is a rate limit, and until when (`nil`: not a rate limit).
    public func limit(of response: HTTPResponse) -> Date? {
        guard response.status == 429 || response.status == 403 else { return nil }
        let now = self.now()
        let remaining = response.headers["X-RateLimit-Remaining"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let reset = Self.reset(response.headers)
        let retryAfter = RetryPolicy.retryAfter(response.headers, now: now)
        if response.status == 403 {
            let message = HTTPStatus.message(fromBody: response.body)?.lowercased() ?? ""
            guard remaining == 0 || retryAfter != nil || message.contains("rate limit") else { return nil }
        }
        if let retryAfter { return now.addingTimeInterval(retryAfter.seconds) }
        if remaining == 0, let reset, reset > now { return reset }
        return now.addingTimeInterval(defaultPause.seconds)
    }

    /// `X-RateLimit-Reset` (epoch seconds) as a date.
    static func reset(_ headers: HTTPHeaders) -> Date? {
        headers["X-RateLimit-Reset"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            .map(Date.init(timeIntervalSince1970:))
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Per-host rate-limit state shared by every feed of a pull.
final class HostRateLimits: Sendable {
    private struct Host {
        /// No request goes out before this.
        var pausedUntil: Date?
    }

    /// What a request to a host must do before it is sent.
    enum Admission: Equatable {
        /// Send now.
        case go
        /// Wait this long, then send.
        case wait(Duration)
        /// The host is limited until this date, beyond the wait allowed: do not send.
        case refuse(until: Date)
    }

    private let hosts = Mutex<[String: Host]>([:])
    let policy: RateLimitPolicy

    init(policy: RateLimitPolicy) {
        self.policy = policy
    }

    /// Reserves the request's turn at `host`.
    func admit(_ host: String) -> Admission {
        let now = policy.now()
        return hosts.withLock { hosts -> Admission in
            var state = hosts[host] ?? Host()
            defer { hosts[host] = state }
            if let until = state.pausedUntil, until > now {
                let wait = until.timeIntervalSince(now)
                guard wait <= policy.maxWait.seconds else { return .refuse(until: until) }
                return .wait(.milliseconds(Int((wait * 1000).rounded(.up))))
            }
            state.pausedUntil = nil
            return .go
        }
    }

    /// Learns from a response's headers; `limitedUntil` when the response was a rate limit.
    func observe(_ response: HTTPResponse, host: String, limitedUntil: Date?) {
        let now = policy.now()
        let remaining = response.headers["X-RateLimit-Remaining"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let reset = RateLimitPolicy.reset(response.headers)
        hosts.withLock { hosts in
            var state = hosts[host] ?? Host()
            defer { hosts[host] = state }
            if let limitedUntil {
                state.pausedUntil = max(state.pausedUntil ?? limitedUntil, limitedUntil)
                return
            }
            guard let remaining, let reset, reset > now else { return }
            if remaining <= 0 {
                state.pausedUntil = max(state.pausedUntil ?? reset, reset)
            } else if remaining < policy.slowDownBelow {
                // Spread what is left until the reset: the next request waits one interval.
                let slot = now.addingTimeInterval(reset.timeIntervalSince(now) / Double(remaining + 1))
                state.pausedUntil = max(state.pausedUntil ?? slot, slot)
            }
        }
    }
}
