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

    /// The strategy's name in logs and `feedagg sources`: `cursor`.
    public var name: String { "cursor" }

    /// The endpoint with this strategy's first-page parameters (the page size, when it has one) set.
    public func firstPage(_ endpoint: URL, pageSize: Int) -> URL {
        guard let size = pageSizeParameter else { return endpoint }
        return QueryEditor.setting(size, to: String(pageSize), in: endpoint)
    }

    /// The page after `page`, or `nil` when the walk ends there.
    public func nextPage(after page: PageOutcome) -> URL? {
        guard let token = page.nextCursor, !token.isEmpty else { return nil }
        return QueryEditor.setting(cursorParameter, to: token, in: page.url)
    }

    /// Every later page, when the first one says how many there are (the engine fetches them concurrently); else `nil`.
    public func remainingPages(after first: PageOutcome) -> [URL]? { nil }
}
