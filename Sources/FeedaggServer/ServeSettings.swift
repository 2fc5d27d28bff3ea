public import FeedaggKit

/// What `feedagg serve` was asked to do, from the command line.
public struct ServeSettings: Sendable {
    /// feeds.yaml: the feeds to keep fresh, re-read on SIGHUP.
    public var configPath: String
    /// The store (`--db`, else the configuration's standard store).
    public var store: StoreLocation = .standard
    /// Where to listen.
    public var listen: ListenAddress = .standard
    /// `--auth-token-file`: required for a non-loopback ``listen``.
    public var authTokenFile: String?
    /// Multiplies every scheduling delay (intervals, jitter, backoff): tests compress a one-minute
    /// interval into a fraction of a second with `--interval-scale 0.001`. 1 in production.
    public var intervalScale: Double = 1
    /// Log every pull's per-feed summary and each request the server answers.
    public var verbose = false
    /// `--public-url`: the origins a reverse proxy serves this server under (accepted `Host`s, and
    /// the base of self and next links for requests that came through them).
    public var publicURLs: [String] = []
    /// `--max-requests`: requests handled at once; more wait up to 2 s, then get 503.
    public var maxConcurrentRequests = 64

    /// Creates settings.
    public init(configPath: String) {
        self.configPath = configPath
    }
}
