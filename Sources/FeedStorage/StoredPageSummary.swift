public import FeedCore
import Foundation

/// What the store keeps of a page instead of its body: the ids of its items (in order) and what
/// the pagination read from it. A `304` for the page is answered with the items rebuilt from the
/// `item` table, so a page body is never stored twice (once as items, once as bytes).
public struct StoredPageSummary: Sendable, Hashable, Codable {
    /// The item ids, in wire order.
    public var ids: [String]
    /// `current_page` of the body, if any.
    public var currentPage: Int?
    /// `total_pages` of the body, if any.
    public var totalPages: Int?
    /// `total_items` of the body, if any.
    public var totalItems: Int?
    /// The next cursor of the body, if any.
    public var nextCursor: String?

    /// The summary of an accepted page.
    public init(_ page: AcceptedPage) {
        ids = page.items.map(\.id)
        currentPage = page.totals?.currentPage
        totalPages = page.totals?.totalPages
        totalItems = page.totals?.totalItems
        nextCursor = page.nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case ids
        case currentPage = "current_page"
        case totalPages = "total_pages"
        case totalItems = "total_items"
        case nextCursor = "next_cursor"
    }

    /// The pagination totals the page carried, if any.
    public var totals: PageTotals? {
        currentPage == nil && totalPages == nil && totalItems == nil
            ? nil : PageTotals(currentPage: currentPage, totalPages: totalPages, totalItems: totalItems)
    }
}
