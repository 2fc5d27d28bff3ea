public import Foundation

/// Page-number pagination: `?page=N`, stopping on the body's totals or an empty / short page.
public struct PageNumberPagination: PaginationStrategy {
    /// The page-number query parameter (`page`).
    public var pageParameter: String
    /// The page-size query parameter (`per_page`, `rpp`), or `nil` to send none.
    public var pageSizeParameter: String?
    /// The number of the first page (1 for most APIs).
    public var firstPageNumber: Int
    /// Whether the feed's page size (``PageOutcome/pageSize``) is the size the API applies.
    ///
    /// `false` when the request carries its size under a name the strategy does not manage (a
    /// declarative source's URL template with `rpp=100`): a short page then does not end the
    /// walk, and `total_items` is divided by page 1's item count.
    public var knowsPageSize: Bool

    /// Creates a page-number strategy.
    public init(
        pageParameter: String = "page", pageSizeParameter: String? = "per_page", firstPageNumber: Int = 1,
        knowsPageSize: Bool = true
    ) {
        self.pageParameter = pageParameter
        self.pageSizeParameter = pageSizeParameter
        self.firstPageNumber = firstPageNumber
        self.knowsPageSize = knowsPageSize
    }

    /// The strategy's name in logs and `feedagg sources`: `page`.
    public var name: String { "page" }

    /// The endpoint with this strategy's first-page parameters (the page size, when it has one) set.
    public func firstPage(_ endpoint: URL, pageSize: Int) -> URL {
        var url = QueryEditor.setting(pageParameter, to: String(firstPageNumber), in: endpoint)
        if let size = pageSizeParameter { url = QueryEditor.setting(size, to: String(pageSize), in: url) }
        return url
    }

    /// The most pages a body's totals may announce for a fan-out, and the largest page number
    /// (counted from ``firstPageNumber``) taken from a body or a URL. Like the Link-header
    /// strategy's limit: past it the walk goes on page by page, ended by a short page or
    /// `max_pages`, instead of building billions of URLs or overflowing on `Int.max`.
    public static let maximumPages = 100_000

    /// The page count the body implies: `total_pages`, else ⌈`total_items` / page size⌉.
    public func totalPages(_ totals: PageTotals?, pageSize: Int) -> Int? {
        guard let totals else { return nil }
        if let pages = totals.totalPages { return max(0, pages) }
        if let items = totals.totalItems, pageSize > 0 {
            let items = max(0, items)  // no `items + pageSize - 1`: it overflows near Int.max
            return items / pageSize + (items % pageSize == 0 ? 0 : 1)
        }
        return nil
    }

    /// The page's number: the body's `current_page`, else the URL's page parameter, else its
    /// position in the walk; a number outside the first ``maximumPages`` pages is not believed.
    private func pageNumber(of page: PageOutcome) -> Int {
        func plausible(_ number: Int) -> Bool {
            number >= firstPageNumber && number - firstPageNumber < Self.maximumPages
        }
        if let current = page.totals?.currentPage, plausible(current) { return current }
        if let value = QueryEditor.value(of: pageParameter, in: page.url), let number = Int(value), plausible(number) {
            return number
        }
        return firstPageNumber + page.number - 1
    }

    /// The page after `page`, or `nil` when the walk ends there.
    public func nextPage(after page: PageOutcome) -> URL? {
        if page.itemCount == 0 { return nil }
        let current = pageNumber(of: page)
        let position = current - firstPageNumber + 1
        if knowsPageSize {
            if let total = totalPages(page.totals, pageSize: page.pageSize) {
                guard position < total else { return nil }
            } else if page.itemCount < page.pageSize {
                return nil
            }
        } else if let pages = page.totals?.totalPages {
            guard position < pages else { return nil }
        } else if let items = page.totals?.totalItems {
            // This page's count is at most the page size, so `position × count ≥ total` only
            // when every item has been seen.
            guard position * page.itemCount < items else { return nil }
        }
        return QueryEditor.setting(pageParameter, to: String(current + 1), in: page.url)
    }

    /// A page whose `current_page` is not the page asked for, or whose page count differs from page 1's.
    public func inconsistency(in page: PageOutcome, first: PageOutcome, expectedPages: Int?) -> String? {
        let asked = QueryEditor.value(of: pageParameter, in: page.url).flatMap { Int($0) }
        if let current = page.totals?.currentPage, let asked, current != asked {
            return "page \(page.number) was asked for as \(pageParameter)=\(asked) but reports current_page = \(current)"
        }
        let size = knowsPageSize ? first.pageSize : max(first.itemCount, 1)
        if page.number > 1, let before = totalPages(first.totals, pageSize: size),
            let now = totalPages(page.totals, pageSize: size), before != now
        {
            return "page \(page.number) reports \(now) pages but page 1 reported \(before)"
                + " (the listing changed during the pull; pull again)"
        }
        return nil
    }

    /// Every later page, when the first one says how many there are (the engine fetches them concurrently); else `nil`.
    public func remainingPages(after first: PageOutcome) -> [URL]? {
        let size = knowsPageSize ? first.pageSize : first.itemCount
        guard first.itemCount > 0, let total = totalPages(first.totals, pageSize: size),
            total <= Self.maximumPages
        else { return nil }
        let current = pageNumber(of: first)
        let lastNumber = firstPageNumber + total - 1
        guard lastNumber > current else { return [] }
        return (current + 1...lastNumber).map {
            QueryEditor.setting(pageParameter, to: String($0), in: first.url)
        }
    }

    /// Pages 2…`count` built from the first page's URL, for a remembered page count (early fan-out); `nil` when the strategy cannot address a page by number.
    public func speculativePages(from first: URL, through count: Int) -> [URL]? {
        guard count >= 2 else { return nil }
        return (firstPageNumber + 1...firstPageNumber + count - 1).map {
            QueryEditor.setting(pageParameter, to: String($0), in: first)
        }
    }
}
