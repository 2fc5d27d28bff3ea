public import Foundation

/// RFC 8288 Link-header pagination, as GitHub does it: follow `rel="next"`, read `rel="last"`.
///
/// The next URL is used exactly as given (its query and even its path may differ from the
/// first request's, e.g. `/orgs/x/repos` → `/organizations/123/repos`).
public struct LinkHeaderPagination: PaginationStrategy {
    /// The query parameter carrying the page size on page 1 (`per_page`), or `nil` to send none.
    public var pageSizeParameter: String?
    /// The query parameter that addresses page N directly on page 1's URL (`page` on GitHub), or
    /// `nil` when pages are only reachable through the links. Used for speculative requests.
    public var pageParameter: String?

    /// Creates a Link-header strategy.
    public init(pageSizeParameter: String? = "per_page", pageParameter: String? = nil) {
        self.pageSizeParameter = pageSizeParameter
        self.pageParameter = pageParameter
    }

    /// Pages 2…`count` built from the first page's URL, for a remembered page count (early fan-out); `nil` when the strategy cannot address a page by number.
    public func speculativePages(from first: URL, through count: Int) -> [URL]? {
        guard let pageParameter, count >= 2 else { return nil }
        return (2...count).map { QueryEditor.setting(pageParameter, to: String($0), in: first) }
    }

    /// The strategy's name in logs and `feedagg sources`: `link`.
    public var name: String { "link" }

    /// The endpoint with this strategy's first-page parameters (the page size, when it has one) set.
    public func firstPage(_ endpoint: URL, pageSize: Int) -> URL {
        guard let parameter = pageSizeParameter else { return endpoint }
        return QueryEditor.setting(parameter, to: String(pageSize), in: endpoint)
    }

    /// The parsed links of a response.
    public func links(_ headers: HTTPHeaders) -> [WebLink] {
        LinkHeader.parse(headers.values(for: "Link"))
    }

    /// The page after `page`, or `nil` when the walk ends there.
    public func nextPage(after page: PageOutcome) -> URL? {
        LinkHeader.first("next", in: links(page.headers))?.resolved(against: page.url)
    }

    /// Every later page, when the first one says how many there are (the engine fetches them concurrently); else `nil`.
    public func remainingPages(after first: PageOutcome) -> [URL]? {
        let links = links(first.headers)
        guard let next = LinkHeader.first("next", in: links)?.resolved(against: first.url),
            let last = LinkHeader.first("last", in: links)?.resolved(against: first.url)
        else { return nil }
        // Fan out only when `last` differs from `next` by one integer query parameter, and
        // `next` holds the value that follows page 1: then page k is `next` with that value = k.
        guard let (parameter, nextValue, lastValue) = QueryEditor.singleIntegerDifference(next, last),
            nextValue == 2, lastValue >= 2, lastValue <= 100_000
        else { return nil }
        return (2...lastValue).map { QueryEditor.setting(parameter, to: String($0), in: next) }
    }

    /// A page before the last that page 1's `rel="last"` announced, without a `rel="next"`.
    public func inconsistency(in page: PageOutcome, first: PageOutcome, expectedPages: Int?) -> String? {
        guard let expected = expectedPages, page.number < expected, nextPage(after: page) == nil else { return nil }
        return "page \(page.number) has no rel=\"next\" link, but page 1's rel=\"last\" announced \(expected) pages"
            + " (the listing changed during the pull; pull again)"
    }
}
