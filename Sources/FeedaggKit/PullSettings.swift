public import FeedCore
public import FeedStorage
public import Foundation

/// Settings of one `pull`, from the command line.
public struct PullSettings: Sendable {
    /// feeds.yaml path.
    public var configPath: String
    /// Serve recorded exchanges from this folder instead of the network.
    public var replayDirectory: String?
    /// Log every request to standard error.
    public var verbose: Bool
    /// Print no per-feed summary.
    public var quiet: Bool
    /// Record every exchange into this folder (scrubbed), as fixtures.
    public var recordDirectory: String?
    /// Pull only these feeds (all when empty).
    public var onlyFeeds: [String] = []
    /// Send every feed to this origin instead of its base URL (keeping the base URL's path).
    public var baseURLOverride: URL?
    /// The store; `nil` means ``StoreLocation/standard``, or ``StoreLocation/temporary`` when
    /// replaying (see ``keepsReplayStore``) or recording.
    public var store: StoreLocation?
    /// A store already open that the pull uses instead of opening ``store`` (and leaves open):
    /// `feedagg serve` on PostgreSQL lends every pull the one store it opened at start, so a pull
    /// costs no connection set-up. `nil`: the pull opens the store and closes it when done.
    public var lentStore: (any StoreDriver)?
    /// Rate limits other `feedagg serve` workers met, asked before each request (see
    /// `RateLimitPolicy.sharedPause`); `nil` for a process pulling alone.
    public var sharedPause: (@Sendable (_ host: String, _ feed: String) -> RateLimitPolicy.SharedRateLimitPause?)?
    /// Told at once of every rate limit with an end the pull meets (`RateLimitPolicy.limitMet`);
    /// `feedagg serve` shares it with the other workers right away.
    public var limitMet: (@Sendable (_ host: String, _ feed: String, _ until: Date) -> Void)?
    /// Incremental (default) or full (`--full`).
    public var refresh: RefreshMode = .incremental
    /// The page of the unified stream to read back after the pull.
    public var page: Int = 1
    /// Entries per page.
    public var perPage: Int = 20
    /// Whether the report carries ``page`` of the stream, read back after the pull (`pull` prints
    /// it). `feedagg serve` pulls without it: it serves pages on request, and on PostgreSQL reading
    /// one back costs a query over the whole stream per pull.
    public var readsPage = true
    /// Keep each result's items in the report (tests); by default they are dropped once committed,
    /// so memory is bounded by the feeds in flight, not by everything pulled.
    public var retainItems = false
    /// `--limit N`: fetch only the pages needed to know the `N` newest items, store what was fetched
    /// (as a limited pull), and print those items instead of a page of the stored stream.
    public var limit: Int?
    /// Without ``store``, keep a replay's store in the cache directory
    /// (``StoreLocation/replayCache(replayDirectory:configPath:)``) instead of a temporary one, so
    /// `feedagg show` can page it afterwards (the command line sets it; library callers get a
    /// temporary store by default).
    public var keepsReplayStore = false
    /// On SIGINT (Ctrl-C), clear the progress line, print one line saying what was saved and that
    /// the next pull resumes, and exit with status 130 (the command line sets it; see ``InterruptWatch``).
    public var reportsInterruption = false

    /// Creates settings.
    public init(configPath: String, replayDirectory: String? = nil, verbose: Bool = false, quiet: Bool = false,
        recordDirectory: String? = nil)
    {
        self.configPath = configPath
        self.replayDirectory = replayDirectory
        self.verbose = verbose
        self.quiet = quiet
        self.recordDirectory = recordDirectory
    }

    /// The store location in effect.
    public var effectiveStore: StoreLocation {
        if let store { return store }
        if let replayDirectory, recordDirectory == nil, keepsReplayStore {
            return .replayCache(replayDirectory: replayDirectory, configPath: configPath)
        }
        return replayDirectory != nil || recordDirectory != nil ? .temporary : .standard
    }
}
