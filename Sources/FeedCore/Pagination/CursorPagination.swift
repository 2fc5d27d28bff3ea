public import Foundation

/// Cursor pagination: each body names the token of the next page (``PageOutcome/nextCursor``),
/// sent back as one query parameter; a null, absent or empty token ends the walk.
///
/// Pages are fetched one by one (the next token is only known once a page has arrived); the
/// engine's cycle guard stops an API that hands back a token already followed.
public struct CursorPagination: PaginationStrategy {
    /// The query parameter carrying the token (`cursor`, `page_token`, `after`).
    public var cursorParameter: String
    /// The page-size query parameter, or `nil` to send none.
    public var pageSizeParameter: String?

    /// Creates a cursor strategy.
    public init(cursorParameter: String = "cursor", pageSizeParameter: String? = nil) {
        self.cursorParameter = cursorParameter
        self.pageSizeParameter = pageSizeParameter
    }

    public var name: String { "cursor" }

    public func firstPage(_ endpoint: URL, pageSize: Int) -> URL {
        guard let size = pageSizeParameter else { return endpoint }
        return QueryEditor.setting(size, to: String(pageSize), in: endpoint)
    }

    public func nextPage(after page: PageOutcome) -> URL? {
        guard let token = page.nextCursor, !token.isEmpty else { return nil }
        return QueryEditor.setting(cursorParameter, to: token, in: page.url)
    }

    public func remainingPages(after first: PageOutcome) -> [URL]? { nil }
}
