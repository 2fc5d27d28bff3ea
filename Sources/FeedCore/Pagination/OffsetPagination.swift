public import Foundation

/// Offset pagination: `?offset=N&limit=M`, stopping on the body's total or an empty / short page.
///
/// Each next offset is the current one plus the items the page held (an API that caps `limit`
/// below what was asked still advances correctly). When page 1 reports the total
/// (``PageTotals/totalItems``), the remaining offsets are known and fetched concurrently.
public struct OffsetPagination: PaginationStrategy {
    /// The offset query parameter (`offset`, `start`, `skip`).
    public var offsetParameter: String
    /// The page-size query parameter (`limit`, `count`), or `nil` when the URL carries the size
    /// itself (then only the total or an empty page ends the walk).
    public var limitParameter: String?
    /// The offset of the first item (0 for most APIs).
    public var firstOffset: Int

    /// Creates an offset strategy.
    public init(offsetParameter: String = "offset", limitParameter: String? = "limit", firstOffset: Int = 0) {
        self.offsetParameter = offsetParameter
        self.limitParameter = limitParameter
        self.firstOffset = firstOffset
    }

    /// The strategy's name in logs and `feedagg sources`: `offset`.
    public var name: String { "offset" }

    /// The endpoint with this strategy's first-page parameters (the page size, when it has one) set.
    public func firstPage(_ endpoint: URL, pageSize: Int) -> URL {
        var url = QueryEditor.setting(offsetParameter, to: String(firstOffset), in: endpoint)
        if let limit = limitParameter { url = QueryEditor.setting(limit, to: String(pageSize), in: url) }
        return url
    }

    /// The offset `page` was requested at.
    public func offset(of page: PageOutcome) -> Int {
        if let value = QueryEditor.value(of: offsetParameter, in: page.url), let offset = Int(value) { return offset }
        return firstOffset
    }

    /// The page after `page`, or `nil` when the walk ends there.
    public func nextPage(after page: PageOutcome) -> URL? {
        guard page.itemCount > 0 else { return nil }
        let next = offset(of: page) + page.itemCount
        if let total = page.totals?.totalItems {
            guard next - firstOffset < total else { return nil }
        } else if limitParameter != nil, page.itemCount < page.pageSize {
            return nil
        }
        return QueryEditor.setting(offsetParameter, to: String(next), in: page.url)
    }

    /// Every later page, when the first one says how many there are (the engine fetches them concurrently); else `nil`.
    public func remainingPages(after first: PageOutcome) -> [URL]? {
        guard first.itemCount > 0, let total = first.totals?.totalItems else { return nil }
        // Page 1's count is the page size the API applies (it is full unless it is the only page).
        let step = first.itemCount
        let start = offset(of: first)
        let end = firstOffset + total
        guard start + step < end else { return [] }
        return stride(from: start + step, to: end, by: step).map {
            QueryEditor.setting(offsetParameter, to: String($0), in: first.url)
        }
    }
}
