public import Foundation

/// What the engine knows about a page once it has been fetched and decoded.
public struct PageOutcome: Sendable {
    /// 1-based position in the walk.
    public var number: Int
    /// The URL requested.
    public var url: URL
    /// The response's header fields: `Link` pagination reads `rel="next"` and `rel="last"` here.
    public var headers: HTTPHeaders
    /// Totals from the body, if the source reported any.
    public var totals: PageTotals?
    /// How many items the page held.
    public var itemCount: Int
    /// The page size that was asked for.
    public var pageSize: Int
    /// The next page's token from the body (``DecodedPage/nextCursor``), for cursor pagination.
    public var nextCursor: String?

    /// Creates an outcome.
    public init(
        number: Int, url: URL, headers: HTTPHeaders, totals: PageTotals?, itemCount: Int, pageSize: Int,
        nextCursor: String? = nil
    ) {
        self.nextCursor = nextCursor
        self.number = number
        self.url = url
        self.headers = headers
        self.totals = totals
        self.itemCount = itemCount
        self.pageSize = pageSize
    }
}
