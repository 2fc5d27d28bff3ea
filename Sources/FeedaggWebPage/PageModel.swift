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
        let filters =
            options.feedFilter.filter { !$0.isEmpty }.map { ("feed", $0) }
            + options.sourceFilter.filter { !$0.isEmpty }.map { ("source", $0) }
        self.nextCursor = cursor ?? ""
        // The page size goes with the cursor, so the next page is as long as this one.
        let size = perPage
        olderLink = cursor.map { Self.link(endpoints.page, [("after", $0), ("limit", String(size))] + filters) }
        endHidden = olderLink != nil || entries.isEmpty
        newestLink = options.after == nil ? nil : Self.link(endpoints.page, [("limit", String(size))] + filters)
        emptyMessage = options.after == nil ? "No items yet." : "No items after this point."
        filterLine =
            filters.isEmpty ? nil : "Showing " + filters.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
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
