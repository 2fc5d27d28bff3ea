public import Foundation
import Synchronization

/// When and how the engine tries a request again.
///
/// Retried: connection failures, timeouts and broken responses (no HTTP answer at all), and the
/// statuses in ``retryableStatuses`` (500, 502, 503, 504). Never retried: any other status — 400,
/// 401, 403, 404, 410, 422… say the same thing the second time. A retried page replaces the failed
/// attempt, so items are never duplicated.
///
/// The wait before try `n + 1` is `baseDelay · 2^(n-1)`, capped at ``maxDelay``, multiplied by a
/// jitter in `[0.5, 1]` so clients that failed together do not retry together; a `Retry-After`
/// (seconds or HTTP date) on the failed response replaces it when longer. A feed stops retrying
/// once its waits would exceed ``maxTotalDelay``.
public struct RetryPolicy: Sendable {
    /// Tries per request, the first included (1 = no retry).
    public var maxAttempts: Int
    /// The wait after the first failure.
    public var baseDelay: Duration
    /// The longest single wait.
    public var maxDelay: Duration
    /// The most one feed waits in total across all its retries.
    public var maxTotalDelay: Duration
    /// HTTP statuses worth another try.
    public var retryableStatuses: Set<Int>
    /// Waits (tests inject a clock that does not sleep).
    public var sleep: @Sendable (Duration) async throws -> Void
    /// The jitter multiplier in `[0.5, 1]` (tests inject a fixed one).
    public var jitter: @Sendable () -> Double

    /// Creates a policy; the defaults are 3 tries, 0.5 s doubling to at most 8 s, 30 s per feed.
    public init(
        maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(8),
        maxTotalDelay: Duration = .seconds(30), retryableStatuses: Set<Int> = [500, 502, 503, 504],
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0.5...1.0) }
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxTotalDelay = maxTotalDelay
        self.retryableStatuses = retryableStatuses
        self.sleep = sleep
        self.jitter = jitter
    }

    /// No retries.
    public static var none: RetryPolicy { RetryPolicy(maxAttempts: 1) }

    /// Whether a transport failure of `kind` is worth another try.
    public func retries(_ kind: TransportError.Kind) -> Bool {
        switch kind {
        case .connectionFailed, .timedOut, .badResponse, .other: return true
        case .responseTooLarge, .tooManyRedirects, .tls, .cancelled, .cannotRun: return false
        }
    }

    /// The wait after failed try `attempt` (1-based), honouring a longer `retryAfter`.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil) -> Duration {
        let exponent = min(max(0, attempt - 1), 30)
        var wait = baseDelay * (1 << exponent)
        if wait > maxDelay { wait = maxDelay }
        wait = wait * min(1, max(0, jitter()))
        if let retryAfter, retryAfter > wait { wait = retryAfter }
        return wait
    }

    /// `Retry-After` as a duration: delta-seconds, or an HTTP date relative to `now`.
    public static func retryAfter(_ headers: HTTPHeaders, now: Date = Date()) -> Duration? {
        guard let value = headers["Retry-After"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
            return nil
        }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds(max(0, Int((date.timeIntervalSince(now) * 1000).rounded(.up))))
    }
}
