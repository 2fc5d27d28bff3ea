public import Foundation

/// What the engine knows about a page once it has been fetched and decoded.
public struct PageOutcome: Sendable {
    /// 1-based position in the walk.
    public var number: Int
    /// The URL requested.
    public var url: URL
    /// The response headers.
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

/// A way of walking an API's pages. Sources pick one; the engine runs the loop.
///
/// Strategies are values: they hold configuration (parameter names), never walk state.
public protocol PaginationStrategy: Sendable {
    /// Short name shown by `feedagg sources` (`link`, `page`).
    var name: String { get }
    /// Page 1's URL from the source's endpoint (adds page and size parameters as needed).
    func firstPage(_ endpoint: URL, pageSize: Int) -> URL
    /// The next page's URL after `page`, or `nil` when the walk is complete.
    func nextPage(after page: PageOutcome) -> URL?
    /// When page 1 reveals the page count: the URLs of pages 2…N in order, so they can be
    /// fetched concurrently; `nil` when the walk must go page by page.
    func remainingPages(after first: PageOutcome) -> [URL]?
    /// Why `page` contradicts what page 1 (`first`) said about the walk, or `nil` when it agrees.
    /// `expectedPages` is the page count page 1 revealed, if any. The engine stops the feed with
    /// this message (items already fetched are kept).
    func inconsistency(in page: PageOutcome, first: PageOutcome, expectedPages: Int?) -> String?
    /// The URLs of pages 2…`count` derived from page 1's URL alone, when the API addresses pages
    /// directly (a page parameter); `nil` when pages can only be reached through page 1's answer.
    /// The engine uses them to fetch pages before page 1 answers when it remembers the page count.
    func speculativePages(from first: URL, through count: Int) -> [URL]?
}

extension PaginationStrategy {
    public func inconsistency(in page: PageOutcome, first: PageOutcome, expectedPages: Int?) -> String? { nil }
    public func speculativePages(from first: URL, through count: Int) -> [URL]? { nil }
}

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

    public func speculativePages(from first: URL, through count: Int) -> [URL]? {
        guard let pageParameter, count >= 2 else { return nil }
        return (2...count).map { QueryEditor.setting(pageParameter, to: String($0), in: first) }
    }

    public var name: String { "link" }

    public func firstPage(_ endpoint: URL, pageSize: Int) -> URL {
        guard let parameter = pageSizeParameter else { return endpoint }
        return QueryEditor.setting(parameter, to: String(pageSize), in: endpoint)
    }

    /// The parsed links of a response.
    public func links(_ headers: HTTPHeaders) -> [WebLink] {
        LinkHeader.parse(headers.values(for: "Link"))
    }

    public func nextPage(after page: PageOutcome) -> URL? {
        LinkHeader.first("next", in: links(page.headers))?.resolved(against: page.url)
    }

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

    public var name: String { "page" }

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

    public func speculativePages(from first: URL, through count: Int) -> [URL]? {
        guard count >= 2 else { return nil }
        return (firstPageNumber + 1...firstPageNumber + count - 1).map {
            QueryEditor.setting(pageParameter, to: String($0), in: first)
        }
    }
}

/// Edits one query parameter of a URL while keeping the rest of the query byte for byte.
public enum QueryEditor {
    /// The raw (percent-encoded) value of `name` in the URL's query.
    public static func value(of name: String, in url: URL) -> String? {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedQuery else {
            return nil
        }
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.first.map(String.init) == name { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }

    /// The URL with `name=value` replacing the first `name` parameter, or appended.
    public static func setting(_ name: String, to value: String, in url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        let encodedName = QueryEncoding.encode(name)
        let pair = "\(encodedName)=\(QueryEncoding.encode(value))"
        var pairs = (components.percentEncodedQuery ?? "").split(separator: "&", omittingEmptySubsequences: true)
            .map(String.init)
        if let index = pairs.firstIndex(where: { $0 == encodedName || $0.hasPrefix(encodedName + "=") }) {
            pairs[index] = pair
        } else {
            pairs.append(pair)
        }
        components.percentEncodedQuery = pairs.joined(separator: "&")
        return components.url ?? url
    }

    /// When `a` and `b` differ only in one query parameter whose values are both integers:
    /// that parameter and the two values.
    public static func singleIntegerDifference(_ a: URL, _ b: URL) -> (String, Int, Int)? {
        guard let ca = URLComponents(url: a, resolvingAgainstBaseURL: true),
            let cb = URLComponents(url: b, resolvingAgainstBaseURL: true),
            ca.scheme == cb.scheme, ca.host == cb.host, ca.port == cb.port, ca.percentEncodedPath == cb.percentEncodedPath
        else { return nil }
        let qa = (ca.percentEncodedQuery ?? "").split(separator: "&").map(String.init)
        let qb = (cb.percentEncodedQuery ?? "").split(separator: "&").map(String.init)
        guard qa.count == qb.count else { return nil }
        var found: (String, Int, Int)?
        for (pa, pb) in zip(qa, qb) where pa != pb {
            let ka = pa.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let kb = pb.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard found == nil, ka.count == 2, kb.count == 2, ka[0] == kb[0], let va = Int(ka[1]), let vb = Int(kb[1])
            else { return nil }
            found = (String(ka[0]), va, vb)
        }
        return found
    }
}
