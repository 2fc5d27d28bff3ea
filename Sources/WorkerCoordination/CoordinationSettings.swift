// Built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

/// How workers share the feeds: lease length, heartbeats, jitter, backoff, the per-host budget.
public struct CoordinationSettings: Sendable {
    /// How long a lease lasts unless renewed; a worker killed mid-pull loses its feeds after it.
    public var leaseTimeout: Duration
    /// A worker not seen for this long no longer counts as live (for the per-host budget, status).
    public var workerTimeout: Duration
    /// The next pull is due `interval × (1 ± jitter)` after a successful one (0 ≤ jitter < 1).
    public var jitter: Double
    /// The longest backoff, as a multiple of the interval, after failures in a row (doubling).
    public var maxBackoffFactor: Int
    /// `max_connections_per_host` for the whole set of workers (divided among live workers).
    public var maxConnectionsPerHost: Int

    /// Creates settings: 2 min leases, workers dead after 2 min unseen, ±10 % jitter, backoff up
    /// to 64 × the interval, 16 connections per host across all workers.
    public init(
        leaseTimeout: Duration = .seconds(120), workerTimeout: Duration? = nil, jitter: Double = 0.1,
        maxBackoffFactor: Int = 64, maxConnectionsPerHost: Int = 16
    ) {
        self.leaseTimeout = leaseTimeout
        self.workerTimeout = workerTimeout ?? leaseTimeout
        self.jitter = min(max(jitter, 0), 0.9)
        self.maxBackoffFactor = max(1, maxBackoffFactor)
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
    }
}

extension Duration {
    /// Whole milliseconds (rounded down), for SQL intervals.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

#endif
