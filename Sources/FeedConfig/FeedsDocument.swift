public import FeedCore
public import FeedSearch

/// A validated feeds.yaml: its feeds in file order, its defaults, its settings, its saved views,
/// its filter rules and its warnings.
public struct FeedsDocument: Sendable {
    /// The declared feeds, in file order.
    public var feeds: [FeedDeclaration]
    /// The top-level `views:` list, in file order (docs/query.md, "Saved views").
    public var views: [SavedView] = []
    /// The filter rules: `settings: filters:` for every feed, and each feed's own `filters:`
    /// (docs/query.md, "Filter rules").
    public var filters = FilterRules.none
    /// The top-level `defaults:` mapping, if any (each feed sees only the keys its source accepts).
    public var defaults: ConfigNode?
    /// The top-level `settings:` block, with defaults for what it does not give.
    public var settings: Settings
    /// Problems that do not stop a run, rendered `file:line:col: warning: …`.
    public var warnings: [String]
    /// The ``warnings`` about credentials (an unset or empty `${VAR}` token, a token written in
    /// the file), which `pull` prints even without `--verbose`.
    public var credentialWarnings: [String]

    /// Creates a document.
    public init(
        feeds: [FeedDeclaration], defaults: ConfigNode?, settings: Settings, warnings: [String],
        credentialWarnings: [String] = []
    ) {
        self.feeds = feeds
        self.defaults = defaults
        self.settings = settings
        self.warnings = warnings
        self.credentialWarnings = credentialWarnings
    }

    /// The engine-wide `settings:` block of feeds.yaml.
    public struct Settings: Sendable, Equatable {
        /// `max_connections_per_host`: connections open at once to one host (1...64).
        public var maxConnectionsPerHost: Int
        /// `page_concurrency`: pages of one feed fetched at once (1...64).
        public var pageConcurrency: Int
        /// `connect_timeout`: seconds allowed to establish a connection.
        public var connectTimeout: Double
        /// `timeout`: seconds allowed for a whole request.
        public var timeout: Double
        /// `first_byte_timeout`: seconds allowed from the start of a request until the first byte of its response.
        public var firstByteTimeout: Double = 30
        /// `user_agent`: the `User-Agent` header sent with every request.
        public var userAgent: String
        /// `retries`: further tries of a request that failed on the network or with 500/502/503/504 (0...10).
        public var retries: Int
        /// `retry_max_wait`: seconds one feed may wait in total between retries.
        public var retryMaxWait: Double
        /// `rate_limit_wait`: seconds one feed may wait in total for rate limits during a pull.
        public var rateLimitWait: Double
        /// `keep_raw`: store every item's original JSON as the API sent it (off: only the mapped fields).
        public var keepRaw = false
        /// `interval`: seconds between two pulls of a feed by `feedagg serve`, for feeds that give
        /// none of their own (``PullInterval``).
        public var interval: Double = PullInterval.standard
        /// `lease_timeout`: seconds a `feedagg serve` worker on a PostgreSQL store holds a feed
        /// without renewing its lease (``LeaseTimeout``).
        public var leaseTimeout: Double = LeaseTimeout.standard
        /// `min_refresh`: seconds after a feed's last pull during which `feedagg serve` refuses to
        /// pull it again on request (`POST /api/refresh`), so repeated requests cannot spend the
        /// feed's credentials (``MinRefresh``; 0 turns the limit off).
        public var minRefresh: Double = MinRefresh.standard
        /// `redact_params`: further URL query parameter names whose values are secrets, redacted
        /// wherever a URL is shown (beside the names ``Redaction`` always redacts).
        public var redactParams: [String] = []
        /// `store`: where this configuration's store is when neither `--db` nor `FEEDAGG_DB` says: a
        /// SQLite file (relative to feeds.yaml's folder) or a `postgres://` URL (`${VAR}` expanded).
        public var store: String?
        /// `store_password_file`: the PostgreSQL password, read from a file only its owner can read
        /// (the `token_file` rules). Never printed.
        public var storePassword: String?
        /// `store_tls`: libpq's TLS parameters of a PostgreSQL store (`sslmode`, `sslrootcert`, `sslcert`,
        /// `sslkey`), file paths resolved; the store URL's own parameters win (docs/store.md, "TLS").
        public var storeTLS: [String: String] = [:]

        /// The accepted keys, sorted (`filters` is read into ``FeedsDocument/filters``).
        public static let keys = [
            "connect_timeout", "filters", "first_byte_timeout", "interval", "keep_raw", "lease_timeout", "max_connections_per_host", "min_refresh", "page_concurrency", "rate_limit_wait",
            "redact_params", "retries", "retry_max_wait",
            "store", "store_password_file", "store_tls", "timeout", "user_agent",
        ]
        /// The range of `retries`.
        public static let retriesRange = 0...10
        /// The range of `max_connections_per_host` and `page_concurrency`.
        public static let concurrencyRange = 1...64
        /// The `User-Agent` used when `user_agent` is not given.
        public static let defaultUserAgent = FeedaggVersion.userAgent
        /// The largest timeout accepted, in seconds (one day).
        public static let maximumTimeout = 86_400.0

        /// Creates settings; every argument defaults to what an absent key means.
        public init(
            maxConnectionsPerHost: Int = 16, pageConcurrency: Int = 16, connectTimeout: Double = 10,
            timeout: Double = 60, userAgent: String = defaultUserAgent, retries: Int = 2, retryMaxWait: Double = 30,
            rateLimitWait: Double = 60
        ) {
            self.rateLimitWait = rateLimitWait
            self.retries = retries
            self.retryMaxWait = retryMaxWait
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.pageConcurrency = pageConcurrency
            self.connectTimeout = connectTimeout
            self.timeout = timeout
            self.userAgent = userAgent
        }
    }
}
