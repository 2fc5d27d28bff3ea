/// The result of mapping one page.
public struct DecodedPage: Sendable {
    /// The page's items, in wire order.
    public var items: [FeedItem]
    /// Totals from the body, for page-number pagination.
    public var totals: PageTotals?
    /// The token that fetches the next page, for cursor pagination (`nil` or empty: last page).
    public var nextCursor: String?

    /// Creates a decoded page.
    public init(items: [FeedItem], totals: PageTotals? = nil, nextCursor: String? = nil) {
        self.items = items
        self.totals = totals
        self.nextCursor = nextCursor
    }
}
