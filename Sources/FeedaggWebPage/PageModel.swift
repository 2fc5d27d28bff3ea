import FeedCore
import FeedaggKit
import Foundation

/// Everything ``PageTemplate`` shows, as plain values the template escapes.
struct PageModel {
    var cards: [ItemCard]
    var rows: [FeedRow]
    var feedCount: Int
    var errorCount: Int
    /// Whether the feeds panel starts open: when a feed's last pull failed.
    var feedsOpen: Bool
    /// Items in the whole stream, when the server said.
    var totalItems: Int?
    var perPage: Int
    /// `next_cursor`, for the script (`data-next-cursor`); empty on the last page.
    var nextCursor: String
    /// The no-JS link to the next page, `nil` on the last page.
    var olderLink: String?
    /// Whether the end marker starts hidden: there are older items, or no items at all.
    var endHidden: Bool
    /// A link back to the newest items, on pages read after a cursor.
    var newestLink: String?
    /// "No items yet." or "No items after this point."
    var emptyMessage: String
    /// A line naming the filter in use, if any.
    var filterLine: String?
    /// The search box's text.
    var search: String
    /// Why the search does not parse, shown instead of the stream.
    var searchError: String?
    /// The page's query kept in the search form (limit, feed, source, view), as hidden fields.
    var hiddenFields: [HiddenField]
    /// The saved views.
    var views: [ViewRow]
    var hasViews: Bool
    var pagePath: String
    var itemsEndpoint: String
    var feedsEndpoint: String
    var refreshEndpoint: String
    var refreshStatusEndpoint: String
    var atomLink: String
    var jsonFeedLink: String
    var scriptPath: String
    var stylesheetPath: String

    init(entries: [StreamEntry], nextCursor: String?, feeds: [FeedStatus], options: StreamWebPage.Options) {
        let endpoints = options.endpoints
        cards = entries.map(ItemCard.init)
        rows = feeds.map(FeedRow.init)
        feedCount = feeds.count
        errorCount = rows.filter { $0.lastError != nil }.count
        feedsOpen = errorCount > 0
        totalItems = options.totalItems
        let cursor = nextCursor.flatMap { entries.isEmpty || $0.isEmpty ? nil : $0 }
        perPage = options.perPage ?? (cursor != nil ? entries.count : 20)
        let narrowing =
            options.feedFilter.filter { !$0.isEmpty }.map { ("feed", $0) }
            + options.sourceFilter.filter { !$0.isEmpty }.map { ("source", $0) }
            + (options.view.map { [("view", $0)] } ?? [])
        let search = options.search.flatMap { $0.isEmpty ? nil : $0 }
        let filters = narrowing + (search.map { [("q", $0)] } ?? [])
        self.nextCursor = cursor ?? ""
        // The page size goes with the cursor, so the next page is as long as this one.
        let size = perPage
        olderLink = cursor.map { Self.link(endpoints.page, [("after", $0), ("limit", String(size))] + filters) }
        endHidden = olderLink != nil || entries.isEmpty
        newestLink = options.after == nil ? nil : Self.link(endpoints.page, [("limit", String(size))] + filters)
        emptyMessage =
            options.after != nil ? "No items after this point." : search != nil || options.view != nil ? "No items match." : "No items yet."
        let described = narrowing.map { "\($0.0) \($0.1)" } + (search.map { ["results for \u{201C}\($0)\u{201D}"] } ?? [])
        filterLine = described.isEmpty ? nil : "Showing " + described.joined(separator: ", ")
        self.search = HTMLText.cleaned(search ?? "")
        searchError = options.searchError.map { HTMLText.cleaned($0) }
        // The search box replaces `q` and starts from the newest items; the rest of the page's
        // query stays (the page size only when it is not the default).
        hiddenFields = ((perPage == 20 ? [] : [("limit", String(perPage))]) + narrowing).map(HiddenField.init)
        views = options.views.map(ViewRow.init)
        hasViews = !views.isEmpty
        pagePath = endpoints.page
        itemsEndpoint = endpoints.items
        feedsEndpoint = endpoints.feeds
        refreshEndpoint = endpoints.refresh
        refreshStatusEndpoint = endpoints.refreshStatus
        atomLink = endpoints.atom
        jsonFeedLink = endpoints.jsonFeed
        scriptPath = WebAssets.scriptPath
        stylesheetPath = WebAssets.stylesheetPath
    }

    /// `path?name=value&…` with every value percent-encoded (only unreserved characters left).
    static func link(_ path: String, _ query: [(String, String)]) -> String {
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { "\($0.0)=\(percentEncoded($0.1))" }.joined(separator: "&")
    }

    static func percentEncoded(_ value: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

/// One `<input type="hidden">` of the search form.
struct HiddenField {
    var fieldName: String
    var fieldValue: String

    init(_ pair: (String, String)) {
        fieldName = pair.0
        fieldValue = HTMLText.cleaned(pair.1)
    }
}

/// One saved view in the page's list.
struct ViewRow {
    var viewName: String
    var viewQuery: String
    var viewPage: String
    var viewAtom: String
    var viewJSON: String

    init(_ link: StreamWebPage.ViewLink) {
        viewName = HTMLText.cleaned(link.name)
        viewQuery = HTMLText.cleaned(link.query)
        viewPage = link.page
        viewAtom = link.atom
        viewJSON = link.jsonFeed
    }
}
