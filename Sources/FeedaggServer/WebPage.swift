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
    static func render(
        entries: [StreamEntry], nextCursor: String?, feeds: [FeedStatus], query: StreamQuery, totalItems: Int
    ) -> String {
        StreamWebPage.render(
            entries: entries, nextCursor: nextCursor, feeds: feeds,
            options: StreamWebPage.Options(
                perPage: query.limit, totalItems: totalItems, after: query.after, feedFilter: query.feeds,
                sourceFilter: query.sources))
    }

    /// The page's script (`/app.js`).
    static let script: String? = WebAssets.script
    /// The page's stylesheet (`/app.css`).
    static let stylesheet: String? = WebAssets.stylesheet
}
