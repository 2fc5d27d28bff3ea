import Metrics
import Prometheus

/// The server's metrics (swift-metrics, exported by swift-prometheus at `/metrics`).
///
/// Pulls by feed and result (`feedagg_pulls_total`), failures (`feedagg_pull_failures_total`),
/// upstream 304s (`feedagg_pull_not_modified_total`), new items (`feedagg_items_new_total`),
/// items stored per feed at scrape time (`feedagg_items`),
/// pull durations (`feedagg_pull_duration_seconds`, a histogram); Hummingbird's
/// `MetricsMiddleware` adds requests by path, method and status (`hb_requests`,
/// `hb_request_duration`, `hb_request_errors`), and ``EntityTagMiddleware`` the 304s it answers
/// (`feedagg_http_not_modified_total`) and the gzip answers (`feedagg_http_gzip_total`).
enum ServerMetrics {
    /// The registry `/metrics` reads, bootstrapped as swift-metrics' backend once per process.
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    /// Records one feed's pull.
    static func recordPull(feed: String, result: FeedSchedule.Result, unchanged: Bool, newItems: Int, duration: Duration) {
        Counter(label: "feedagg_pulls_total", dimensions: [("feed", feed), ("result", result.rawValue)]).increment()
        if result == .failed { Counter(label: "feedagg_pull_failures_total", dimensions: [("feed", feed)]).increment() }
        if unchanged { Counter(label: "feedagg_pull_not_modified_total", dimensions: [("feed", feed)]).increment() }
        if newItems > 0 { Counter(label: "feedagg_items_new_total", dimensions: [("feed", feed)]).increment(by: newItems) }
        Timer(label: "feedagg_pull_duration_seconds", dimensions: [("feed", feed)], preferredDisplayUnit: .seconds)
            .record(duration: duration)
    }

    /// Sets the number of items stored for `feed` (`feedagg_items`).
    static func recordStoredItems(feed: String, count: Int) {
        Gauge(label: "feedagg_items", dimensions: [("feed", feed)]).record(count)
    }

    /// Counts a 304 answered from `If-None-Match`.
    static func recordNotModified() {
        Counter(label: "feedagg_http_not_modified_total").increment()
    }

    /// Counts a read of the store's change number (a round trip on PostgreSQL; none while its
    /// announcements vouch for the number, ``ChangeNumberWatch``).
    static func recordChangeNumberRead() {
        Counter(label: "feedagg_store_change_number_reads_total").increment()
    }

    /// Counts a change of the store announced to this server (``ChangeNumberWatch``).
    static func recordChangeAnnounced() {
        Counter(label: "feedagg_store_changes_announced_total").increment()
    }

    /// Counts a first page answered from the pages kept rendered (`RenderedPages`).
    static func recordKeptPage() {
        Counter(label: "feedagg_http_kept_pages_total").increment()
    }

    /// Counts a gzip-compressed answer.
    static func recordGzip() {
        Counter(label: "feedagg_http_gzip_total").increment()
    }

    /// Why the server refused a request before any route ran.
    enum Refusal: String {
        /// The `Host` did not name the server (421).
        case host
        /// A state-changing request that may have come from another site (403).
        case crossSite = "cross_site"
        /// Too many requests at once (503).
        case busy
        /// A URL or header too large (414, 431).
        case tooLarge = "too_large"
        /// Too many failed bearer tokens from one address (429).
        case authThrottled = "auth_throttled"
        /// A refresh asked for too soon after the last pull (429).
        case refreshTooSoon = "refresh_too_soon"
    }

    /// Counts a refused request (`feedagg_http_refused_total{reason}`).
    static func recordRefused(_ reason: Refusal) {
        Counter(label: "feedagg_http_refused_total", dimensions: [("reason", reason.rawValue)]).increment()
    }
}
