public import Foundation

/// Where an interrupted pull of a feed continues: the next page to fetch and what the walk knew
/// when it stopped. A ``PageSink`` stores one with every page it accepts, so a pull stopped by a
/// rate limit, a failure or a crash resumes from the page where it stopped instead of page 1.
public struct ResumePoint: Sendable, Equatable, Codable {
    /// The number of the next page (every page before it is stored).
    public var nextPage: Int
    /// When the page count is known (fan-out): the URL of every remaining page, in order.
    /// Otherwise only the next page's URL; later pages follow its next links.
    public var urls: [URL]
    /// Whether ``urls`` lists every remaining page.
    public var knownCount: Bool
    /// The page count page 1 announced, if it did.
    public var expectedPages: Int?
    /// The latest URLs already fetched (up to 64, oldest first), for the cycle guard.
    public var visited: [String]
    /// The `since` watermark the interrupted walk asked with, if any.
    public var watermark: Date?

    /// Creates a resume point.
    public init(
        nextPage: Int, urls: [URL], knownCount: Bool, expectedPages: Int? = nil, visited: [String] = [],
        watermark: Date? = nil
    ) {
        self.nextPage = nextPage
        self.urls = urls
        self.knownCount = knownCount
        self.expectedPages = expectedPages
        self.visited = visited
        self.watermark = watermark
    }
}

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

/// Receives a feed's pages as the engine accepts them, in page order, so that a pull's memory is
/// bounded by the pages in flight rather than by the feed's size (a store writes each page as it
/// comes and makes the feed's pull visible at once when it ends).
public protocol PageSink: Sendable {
    /// Takes `page` of `feed`. Throwing stops the feed's walk with a ``FeedError/Reason/notSaved(_:)``.
    func accept(_ page: AcceptedPage, of feed: Feed) async throws
}

extension FeedError.Reason {
    /// Whether the page could not be saved (``notSaved(_:)``).
    public var isNotSaved: Bool {
        if case .notSaved = self { return true }
        return false
    }

    /// Whether a later pull should continue from where this failure stopped the walk. Not for
    /// pagination that contradicts itself (resuming would meet the same contradiction) or a
    /// configuration problem.
    public var isResumable: Bool {
        switch self {
        case .httpStatus, .transport, .decode, .rateLimited, .notSaved: return true
        case .paginationCycle, .paginationInconsistent, .configuration: return false
        }
    }
}
