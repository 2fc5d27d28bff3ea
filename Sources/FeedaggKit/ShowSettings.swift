public import FeedConfig
import FeedCore
public import FeedSearch
import FeedStore
public import FeedStorage
public import Foundation

/// What `feedagg show` reads.
public struct ShowSettings: Sendable {
    /// feeds.yaml path (declares which feeds are shown, in which order); `nil` with a `--db` store
    /// and no configuration found: every stored feed, by name.
    public var configPath: String?
    /// The store to read (`--db`, else the standard store for the configuration).
    public var store: StoreLocation = .standard
    /// Only these feeds (all declared feeds when empty).
    public var feeds: [String] = []
    /// Only feeds of these source types (all when empty).
    public var sources: [String] = []
    /// Page number (1-based), used when ``after`` is `nil`.
    public var page: Int = 1
    /// Entries per page.
    public var perPage: Int = 20
    /// A `next_cursor` from an earlier page: show the entries after it.
    public var after: String?
    /// A search (`--query`, `?q=`; docs/query.md), ANDed with the view's query when ``view`` is
    /// set; ``SearchQuery/everything`` for none.
    public var query: SearchQuery = .everything
    /// A saved view of the configuration (`--view`, `/views/NAME.atom`), by name: its query is
    /// ANDed with ``query``. An unknown name is a ``ConfigError`` with a did-you-mean.
    public var view: String?
    /// Whether the configuration's filter rules apply (they do for every read; `feedagg filters`
    /// reads without them to compare).
    public var appliesRules = true
    /// The time ages (`newer:7d`) count back from; `nil`: the time of the read.
    public var now: Date?
    /// The configuration, when the caller holds it already (`feedagg serve` keeps the one it
    /// loaded until SIGHUP): its feeds, views and filter rules are used instead of reading
    /// ``configPath`` again, which then only locates the standard store. Takes the place of
    /// ``declaredFeeds``.
    public var document: FeedsDocument?
    /// The declared feeds in declaration order, when the caller holds the configuration already
    /// (`feedagg serve` keeps the one it loaded until SIGHUP): used instead of reading
    /// ``configPath`` again, which then only locates the standard store.
    public var declaredFeeds: [String]?
    /// An open store to read instead of opening ``store`` (and closing it after the read): `feedagg
    /// serve` on PostgreSQL lends its pool, so a page served costs one pooled query, not a
    /// connection, a schema check and a pool of its own. The caller keeps it open.
    public var lentStore: (any StoreDriver)?

    /// Creates settings.
    public init(configPath: String?) {
        self.configPath = configPath
    }
}
