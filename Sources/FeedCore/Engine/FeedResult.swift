public import Foundation

/// The outcome of pulling one feed. Items fetched before a failure are kept.
public struct FeedResult: Sendable {
    /// The feed's name.
    public var feed: String
    /// The feed's source type name (`github.repos`), for summaries.
    public var source: String
    /// Items in wire order, pages in order; empty when the pull handed its pages to a ``PageSink``.
    public var items: [FeedItem]
    /// How many items the pages held (``items`` may be empty, see above).
    public var itemCount: Int
    /// Pages fetched and decoded.
    public var pages: Int
    /// HTTP requests sent, retries included; requests cancelled because the walk no longer needed
    /// them (a fanned-out page after a failure, a speculative page beyond the end) are not counted.
    public var requests: Int
    /// Why the feed failed, if it did.
    public var error: FeedError?
    /// Non-fatal remarks (`stopped at max_pages = 3; more pages exist`).
    public var notes: [String]
    /// Wall time of the feed's pull.
    public var duration: Duration
    /// Page 1 answered `304 Not Modified`: the feed is unchanged since the last pull and
    /// ``items`` is empty (the caller's store holds them).
    public var unchanged: Bool
    /// Responses worth remembering for the next pull's conditional requests, in page order.
    public var cacheable: [CachedResponse]
    /// The walk read every page the API lists, unfiltered: no failure, no `max_pages` stop, no
    /// incremental stop, no `since` watermark. Only then may a store conclude that stored items
    /// the pull did not return are gone from the API.
    public var complete: Bool
    /// An incremental pull stopped after this page because it held only items already stored
    /// unchanged (the older pages are stored too).
    public var stoppedAtStoredPage: Int?
    /// An incremental pull asked only for items updated since this date (the API's `since` filter).
    public var watermark: Date?
    /// The pull continued an interrupted one from this page (see ``ResumePoint``).
    public var resumedAtPage: Int?
    /// Pages requested before page 1 answered, because the store remembered the page count.
    public var speculativePages: Int

    /// Creates a result.
    public init(
        feed: String, source: String, items: [FeedItem] = [], pages: Int = 0, requests: Int = 0,
        error: FeedError? = nil, notes: [String] = [], duration: Duration = .zero
    ) {
        self.init(
            feed: feed, source: source, items: items, itemCount: items.count, pages: pages, requests: requests, error: error,
            notes: notes, duration: duration, unchanged: false, cacheable: [], complete: false, stoppedAtStoredPage: nil,
            watermark: nil, resumedAtPage: nil, speculativePages: 0)
    }

    /// Creates a result with every field: how the engine reports a walk.
    init(
        feed: String, source: String, items: [FeedItem], itemCount: Int, pages: Int, requests: Int,
        error: FeedError?, notes: [String], duration: Duration, unchanged: Bool, cacheable: [CachedResponse],
        complete: Bool, stoppedAtStoredPage: Int?, watermark: Date?, resumedAtPage: Int?, speculativePages: Int
    ) {
        self.feed = feed
        self.source = source
        self.items = items
        self.itemCount = itemCount
        self.pages = pages
        self.requests = requests
        self.error = error
        self.notes = notes
        self.duration = duration
        self.unchanged = unchanged
        self.cacheable = cacheable
        self.complete = complete
        self.stoppedAtStoredPage = stoppedAtStoredPage
        self.watermark = watermark
        self.resumedAtPage = resumedAtPage
        self.speculativePages = speculativePages
    }

    /// Whether the pull completed without error.
    public var succeeded: Bool { error == nil }
}
