import Foundation

/// One page the engine accepted, handed to a ``PageSink`` in page order.
public struct AcceptedPage: Sendable {
    /// The page's number in the walk (1-based).
    public var number: Int
    /// Its items, in wire order.
    public var items: [FeedItem]
    /// Its totals (page-number pagination).
    public var totals: PageTotals?
    /// Its next cursor (cursor pagination).
    public var nextCursor: String?
    /// The response to remember for the next pull's conditional request, if it has validators.
    public var cacheable: CachedResponse?
    /// Where a later pull continues if this one stops after this page; `nil` after the last page.
    public var resume: ResumePoint?

    /// Creates an accepted page.
    public init(
        number: Int, items: [FeedItem], totals: PageTotals? = nil, nextCursor: String? = nil,
        cacheable: CachedResponse? = nil, resume: ResumePoint? = nil
    ) {
        self.number = number
        self.items = items
        self.totals = totals
        self.nextCursor = nextCursor
        self.cacheable = cacheable
        self.resume = resume
    }
}
