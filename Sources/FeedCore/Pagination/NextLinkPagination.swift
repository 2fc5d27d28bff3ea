public import Foundation

/// Pagination by a next-page link in the body (a feed's Atom `<link rel="next">`, RFC 5005; JSON
/// Feed's `next_url`; an API's `"next": "https://…"`), handed over as ``DecodedPage/nextCursor``
/// (a URL, resolved against the page's) and followed as given, http(s) only. Pages go one by one;
/// the engine's cycle guard stops a link back to a page already fetched, and `max_pages` bounds
/// the walk.
public struct NextLinkPagination: PaginationStrategy {
    /// Creates the strategy.
    public init() {}

    public var name: String { "link (in the body)" }

    public func firstPage(_ endpoint: URL, pageSize: Int) -> URL { endpoint }

    public func nextPage(after page: PageOutcome) -> URL? {
        guard let next = page.nextCursor, !next.isEmpty, let url = URL(string: next, relativeTo: page.url)?.absoluteURL,
            ["http", "https"].contains(url.scheme?.lowercased() ?? "")
        else { return nil }
        return url
    }

    public func remainingPages(after first: PageOutcome) -> [URL]? { nil }
}
