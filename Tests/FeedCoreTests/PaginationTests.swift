import FeedCore
import Foundation
import Testing

@Suite("Pagination strategies")
struct PaginationTests {
    func outcome(_ url: String, number: Int = 1, link: String? = nil, totals: PageTotals? = nil, items: Int, size: Int)
        -> PageOutcome
    {
        var headers = HTTPHeaders()
        if let link { headers.add("Link", link) }
        return PageOutcome(
            number: number, url: URL(string: url)!, headers: headers, totals: totals, itemCount: items, pageSize: size)
    }

    @Test("Link: next URL used exactly as given, even on another path")
    func linkNextKeepsQuery() {
        let strategy = LinkHeaderPagination()
        let page = outcome(
            "https://api.github.com/orgs/x/repos?per_page=100",
            link: #"<https://api.github.com/organizations/123/repos?per_page=100&page=2&x=%2Fy>; rel="next""#, items: 100,
            size: 100)
        #expect(
            strategy.nextPage(after: page)?.absoluteString
                == "https://api.github.com/organizations/123/repos?per_page=100&page=2&x=%2Fy")
        #expect(strategy.remainingPages(after: page) == nil, "no rel=last: walk sequentially")
    }

    @Test("Link: first page adds per_page; last reveals pages for fan-out")
    func linkFanOut() {
        let strategy = LinkHeaderPagination()
        #expect(
            strategy.firstPage(URL(string: "https://h.test/orgs/x/repos")!, pageSize: 100).absoluteString
                == "https://h.test/orgs/x/repos?per_page=100")
        let page = outcome(
            "https://h.test/orgs/x/repos?per_page=100",
            link:
                #"<https://h.test/organizations/1/repos?per_page=100&page=2>; rel="next", <https://h.test/organizations/1/repos?per_page=100&page=4>; rel="last""#,
            items: 100, size: 100)
        #expect(
            strategy.remainingPages(after: page)?.map(\.absoluteString) == [
                "https://h.test/organizations/1/repos?per_page=100&page=2",
                "https://h.test/organizations/1/repos?per_page=100&page=3",
                "https://h.test/organizations/1/repos?per_page=100&page=4",
            ])
    }

    @Test("Link: cursor-style next and last (differing in more than a page number) are not fanned out")
    func linkCursor() {
        let page = outcome(
            "https://h.test/gists?since=2020",
            link: #"<https://h.test/gists?since=2020&after=abc>; rel="next", <https://h.test/gists?since=2020&after=zzz&page=9>; rel="last""#,
            items: 30, size: 30)
        #expect(LinkHeaderPagination().remainingPages(after: page) == nil)
    }

    @Test("Page numbers: total_pages stops the walk")
    func pageTotals() {
        let strategy = PageNumberPagination(pageParameter: "page", pageSizeParameter: "rpp")
        let first = strategy.firstPage(URL(string: "https://px.test/v1/photos?feature=editors")!, pageSize: 20)
        #expect(first.absoluteString == "https://px.test/v1/photos?feature=editors&page=1&rpp=20")
        let p1 = outcome(first.absoluteString, totals: PageTotals(currentPage: 1, totalPages: 3, totalItems: 55), items: 20, size: 20)
        #expect(strategy.nextPage(after: p1)?.absoluteString == "https://px.test/v1/photos?feature=editors&page=2&rpp=20")
        #expect(strategy.remainingPages(after: p1)?.count == 2)
        let p3 = outcome(
            "https://px.test/v1/photos?feature=editors&page=3&rpp=20", number: 3,
            totals: PageTotals(currentPage: 3, totalPages: 3, totalItems: 55), items: 15, size: 20)
        #expect(strategy.nextPage(after: p3) == nil)
    }

    @Test("Page numbers: only total_items given → ceil(total_items / page_size) pages")
    func pageTotalItems() {
        let strategy = PageNumberPagination()
        #expect(strategy.totalPages(PageTotals(totalItems: 101), pageSize: 20) == 6)
        #expect(strategy.totalPages(PageTotals(totalItems: 100), pageSize: 20) == 5)
        #expect(strategy.totalPages(PageTotals(totalItems: 0), pageSize: 20) == 0)
        let p1 = outcome("https://h.test/x?page=1&per_page=20", totals: PageTotals(totalItems: 41), items: 20, size: 20)
        #expect(strategy.remainingPages(after: p1)?.map(\.absoluteString) == ["https://h.test/x?page=2&per_page=20", "https://h.test/x?page=3&per_page=20"])
    }

    @Test("Page numbers without totals: an empty or short page ends the walk")
    func pageNoTotals() {
        let strategy = PageNumberPagination()
        #expect(strategy.nextPage(after: outcome("https://h.test/x?page=4", items: 0, size: 20)) == nil)
        #expect(strategy.nextPage(after: outcome("https://h.test/x?page=4", items: 7, size: 20)) == nil)
        #expect(strategy.nextPage(after: outcome("https://h.test/x?page=4", items: 20, size: 20))?.absoluteString == "https://h.test/x?page=5")
        #expect(strategy.remainingPages(after: outcome("https://h.test/x?page=1", items: 20, size: 20)) == nil)
    }

    // Reproduced with the photos-500px fuzz target (make fuzz): a 200 body's totals are the
    // server's word, so extreme values must neither trap on Int overflow nor build one URL per
    // announced page.

    @Test(
        "Page numbers: extreme totals and page numbers in a body neither overflow nor fan out",
        arguments: [
            PageTotals(currentPage: 1, totalPages: Int.max),
            PageTotals(currentPage: 1, totalItems: Int.max),
            PageTotals(currentPage: Int.max, totalPages: 3),
            PageTotals(currentPage: Int.min, totalPages: 3),
            PageTotals(currentPage: Int.max),
            PageTotals(currentPage: 1, totalPages: 1_000_000_000),
        ])
    func pageExtremeTotals(totals: PageTotals) {
        let strategy = PageNumberPagination(pageParameter: "page", pageSizeParameter: "rpp")
        let p1 = outcome("https://px.test/v1/photos?page=1&rpp=20", totals: totals, items: 20, size: 20)
        let remaining = strategy.remainingPages(after: p1)
        #expect((remaining?.count ?? 0) <= PageNumberPagination.maximumPages)
        if let next = strategy.nextPage(after: p1) {
            #expect(next.absoluteString == "https://px.test/v1/photos?page=2&rpp=20", "an implausible current_page is not believed")
        }
    }

    @Test("Page numbers: more than maximumPages announced → walk page by page, not a fan-out")
    func pageTooManyToFanOut() {
        let strategy = PageNumberPagination()
        let many = PageTotals(currentPage: 1, totalPages: PageNumberPagination.maximumPages + 1)
        let p1 = outcome("https://h.test/x?page=1", totals: many, items: 20, size: 20)
        #expect(strategy.remainingPages(after: p1) == nil)
        #expect(strategy.nextPage(after: p1)?.absoluteString == "https://h.test/x?page=2")
        let limit = PageTotals(currentPage: 1, totalPages: PageNumberPagination.maximumPages)
        #expect(strategy.remainingPages(after: outcome("https://h.test/x?page=1", totals: limit, items: 20, size: 20))?.count
            == PageNumberPagination.maximumPages - 1)
        #expect(strategy.totalPages(PageTotals(totalItems: Int.max), pageSize: 20) == Int.max / 20 + 1)
    }
}

@Suite("Offset, cursor and size-less page pagination")
struct OffsetCursorPaginationTests {
    func outcome(_ url: String, totals: PageTotals? = nil, items: Int, size: Int, cursor: String? = nil) -> PageOutcome {
        PageOutcome(
            number: 1, url: URL(string: url)!, headers: HTTPHeaders(), totals: totals, itemCount: items, pageSize: size,
            nextCursor: cursor)
    }

    @Test("offset: first page, next by items received, stop on total or a short page")
    func offsetWalk() {
        let strategy = OffsetPagination(offsetParameter: "start", limitParameter: "count")
        #expect(strategy.firstPage(URL(string: "https://h.test/items?q=a")!, pageSize: 50).absoluteString
            == "https://h.test/items?q=a&start=0&count=50")
        let page = outcome("https://h.test/items?q=a&start=0&count=50", items: 40, size: 50)
        #expect(strategy.nextPage(after: page) == nil, "a short page ends the walk")
        let full = outcome("https://h.test/items?q=a&start=50&count=50", totals: PageTotals(totalItems: 120), items: 50, size: 50)
        #expect(strategy.nextPage(after: full)?.absoluteString == "https://h.test/items?q=a&start=100&count=50")
        let last = outcome("https://h.test/items?q=a&start=100&count=50", totals: PageTotals(totalItems: 120), items: 20, size: 50)
        #expect(strategy.nextPage(after: last) == nil)
        #expect(strategy.nextPage(after: outcome("https://h.test/items?start=0", items: 0, size: 50)) == nil)
    }

    @Test("offset: a known total fans out every remaining offset by page 1's count")
    func offsetFanOut() {
        let strategy = OffsetPagination()
        let first = outcome("https://h.test/i?offset=0&limit=100", totals: PageTotals(totalItems: 250), items: 100, size: 100)
        #expect(strategy.remainingPages(after: first)?.map(\.absoluteString) == [
            "https://h.test/i?offset=100&limit=100", "https://h.test/i?offset=200&limit=100",
        ])
        let only = outcome("https://h.test/i?offset=0&limit=100", totals: PageTotals(totalItems: 7), items: 7, size: 100)
        #expect(strategy.remainingPages(after: only) == [])
        #expect(strategy.remainingPages(after: outcome("https://h.test/i?offset=0", items: 100, size: 100)) == nil)
    }

    @Test("offset without a limit parameter: only the total or an empty page ends the walk")
    func offsetWithoutLimit() {
        let strategy = OffsetPagination(limitParameter: nil)
        let page = outcome("https://h.test/i?size=10&offset=0", items: 7, size: 30)
        #expect(strategy.nextPage(after: page)?.absoluteString == "https://h.test/i?size=10&offset=7")
    }

    @Test("cursor: the token replaces the cursor parameter; null, absent or empty ends the walk")
    func cursor() {
        let strategy = CursorPagination(cursorParameter: "after", pageSizeParameter: "first")
        #expect(strategy.firstPage(URL(string: "https://h.test/q")!, pageSize: 10).absoluteString == "https://h.test/q?first=10")
        let page = outcome("https://h.test/q?first=10", items: 10, size: 10, cursor: "abc/=")
        #expect(strategy.nextPage(after: page)?.absoluteString == "https://h.test/q?first=10&after=abc%2F%3D")
        let again = outcome("https://h.test/q?first=10&after=abc", items: 10, size: 10, cursor: "def")
        #expect(strategy.nextPage(after: again)?.absoluteString == "https://h.test/q?first=10&after=def")
        for end in [nil, ""] {
            #expect(strategy.nextPage(after: outcome("https://h.test/q", items: 10, size: 10, cursor: end)) == nil)
        }
        #expect(strategy.remainingPages(after: page) == nil)
    }

    @Test("page numbers with the size in the URL: totals, not the feed's page size, end the walk")
    func pageWithoutKnownSize() {
        let strategy = PageNumberPagination(pageSizeParameter: nil, knowsPageSize: false)
        // The feed's page size (30) is not what the URL asks for (rpp=100): a 100-item page is not "short".
        let first = outcome("https://h.test/p?rpp=100&page=1", items: 100, size: 30)
        #expect(strategy.nextPage(after: first)?.absoluteString == "https://h.test/p?rpp=100&page=2")
        let smaller = outcome("https://h.test/p?rpp=10&page=1", items: 10, size: 30)
        #expect(strategy.nextPage(after: smaller) != nil, "fewer items than per_page is not the end")
        let items = outcome("https://h.test/p?rpp=100&page=1", totals: PageTotals(totalItems: 250), items: 100, size: 30)
        #expect(strategy.remainingPages(after: items)?.count == 2, "250 items at page 1's 100 → 3 pages")
        // Without the page size, a 50-item page 3 of 250 items may be the last (100 per page) or
        // not (50 per page): the walk asks once more, and an empty page ends it.
        let short = outcome("https://h.test/p?rpp=100&page=3", totals: PageTotals(totalItems: 250), items: 50, size: 30)
        #expect(strategy.nextPage(after: short)?.absoluteString == "https://h.test/p?rpp=100&page=4")
        let full = outcome("https://h.test/p?rpp=100&page=3", totals: PageTotals(totalItems: 300), items: 100, size: 30)
        #expect(strategy.nextPage(after: full) == nil, "3 × 100 items seen of 300")
        let pages = outcome("https://h.test/p?rpp=100&page=1", totals: PageTotals(totalPages: 4), items: 100, size: 30)
        #expect(strategy.remainingPages(after: pages)?.count == 3)
    }
}
