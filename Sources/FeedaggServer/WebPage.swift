import FeedConfig
import FeedaggKit
import FeedaggWebPage
import FeedCore

/// The HTML page of `/`: the one place the server asks for it.
///
/// The page itself (item cards, infinite scroll, the refresh control, its script and stylesheet)
/// is the `FeedaggWebPage` target's (docs/web-page.md); these three members call it.
enum WebPage {
    /// The whole document: `entries` (the page of the stream `query` asks for, `totalItems` in the
    /// whole listing), a link to the page after `nextCursor` (`/?after=…`, for readers without
    /// JavaScript) and the feeds' statuses.
    ///
    /// A search that does not parse is shown as `searchError` (the parse error, its caret) with no
    /// entries; `views` are the configuration's saved views, listed with their documents.
    static func render(
        entries: [StreamEntry], nextCursor: String?, feeds: [FeedStatus], query: StreamQuery, totalItems: Int?,
        views: [SavedView], search: String? = nil, searchError: String? = nil
    ) -> String {
        StreamWebPage.render(
            entries: entries, nextCursor: nextCursor, feeds: feeds,
            options: StreamWebPage.Options(
                perPage: query.limit, totalItems: totalItems, after: query.after, feedFilter: query.feeds,
                sourceFilter: query.sources, search: search ?? query.search, searchError: searchError, view: query.view,
                views: views.map { StreamWebPage.ViewLink(name: $0.name, query: $0.text) }))
    }

    /// The page's script (`/app.js`).
    static let script: String? = WebAssets.script
    /// The page's stylesheet (`/app.css`).
    static let stylesheet: String? = WebAssets.stylesheet
}
