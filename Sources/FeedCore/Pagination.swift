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

    /// Creates an outcome.
    public init(number: Int, url: URL, headers: HTTPHeaders, totals: PageTotals?, itemCount: Int, pageSize: Int) {
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
}

/// RFC 8288 Link-header pagination, as GitHub does it: follow `rel="next"`, read `rel="last"`.
///
/// The next URL is used exactly as given (its query and even its path may differ from the
/// first request's, e.g. `/orgs/x/repos` → `/organizations/123/repos`).
public struct LinkHeaderPagination: PaginationStrategy {
    /// The query parameter carrying the page size on page 1 (`per_page`), or `nil` to send none.
    public var pageSizeParameter: String?

    /// Creates a Link-header strategy.
    public init(pageSizeParameter: String? = "per_page") {
        self.pageSizeParameter = pageSizeParameter
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
}

/// Page-number pagination: `?page=N`, stopping on the body's totals or an empty / short page.
public struct PageNumberPagination: PaginationStrategy {
    /// The page-number query parameter (`page`).
    public var pageParameter: String
    /// The page-size query parameter (`per_page`, `rpp`), or `nil` to send none.
    public var pageSizeParameter: String?
    /// The number of the first page (1 for most APIs).
    public var firstPageNumber: Int

    /// Creates a page-number strategy.
    public init(pageParameter: String = "page", pageSizeParameter: String? = "per_page", firstPageNumber: Int = 1) {
        self.pageParameter = pageParameter
        self.pageSizeParameter = pageSizeParameter
        self.firstPageNumber = firstPageNumber
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
        if let total = totalPages(page.totals, pageSize: page.pageSize) {
            guard current - firstPageNumber + 1 < total else { return nil }
        } else if page.itemCount < page.pageSize {
            return nil
        }
        return QueryEditor.setting(pageParameter, to: String(current + 1), in: page.url)
    }

    public func remainingPages(after first: PageOutcome) -> [URL]? {
        guard first.itemCount > 0, let total = totalPages(first.totals, pageSize: first.pageSize),
            total <= Self.maximumPages
        else { return nil }
        let current = pageNumber(of: first)
        let lastNumber = firstPageNumber + total - 1
        guard lastNumber > current else { return [] }
        return (current + 1...lastNumber).map {
            QueryEditor.setting(pageParameter, to: String($0), in: first.url)
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
