public import FeedCore
public import FeedaggKit
import Foundation
import Mustache

/// The HTML page `feedagg serve` answers at `/`: the merged stream newest first as item cards, the
/// feeds with when each was last updated and its last error, a refresh control and infinite scroll.
///
/// The first page is rendered here, on the server, so the page works with JavaScript off: its
/// cards, and a plain "Older items" link to `/?after=CURSOR`. A search box (a GET form, `q`)
/// reloads the page with `/?q=QUERY`, a URL that can be shared; the saved views are listed with
/// their documents. With JavaScript on, ``WebAssets/script``
/// (served from ``WebAssets/scriptPath``) loads the following pages from `/api/items` as the
/// reader nears the end, marks the end, and drives the refresh control (`POST /api/refresh`, then
/// `/api/refresh/status` until it is done).
///
/// Remote text (titles, summaries, authors, feed errors) is escaped by swift-mustache, which escapes
/// `< > & " '` in every `{{…}}`; links and images are only ever absolute `http`/`https` URLs
/// (anything else is dropped). The page has no inline script, style or event handler, so it runs
/// under the `Content-Security-Policy` `feedagg serve` sends (`script-src 'self'`, nothing inline).
public enum StreamWebPage {
    /// Where the page's data comes from and where its links go; the server's routes by default.
    public struct Endpoints: Sendable {
        /// The page itself (the "Older items" link is `page?after=CURSOR`).
        public var page: String
        /// The JSON page of items (`?limit=N&after=CURSOR&feed=X&source=S`).
        public var items: String
        /// The feeds' status (`feedagg feeds --format json`).
        public var feeds: String
        /// `POST` pulls every feed now (`?feed=` ones only); answers the refresh status.
        public var refresh: String
        /// The refresh status, polled until `done`.
        public var refreshStatus: String
        /// The merged stream as Atom, linked from the page's head and header.
        public var atom: String
        /// The merged stream as JSON Feed, likewise.
        public var jsonFeed: String

        /// The routes of `feedagg serve`.
        public init(
            page: String = "/", items: String = "/api/items", feeds: String = "/api/feeds",
            refresh: String = "/api/refresh", refreshStatus: String = "/api/refresh/status",
            atom: String = "/stream.atom", jsonFeed: String = "/stream.json"
        ) {
            self.page = page
            self.items = items
            self.feeds = feeds
            self.refresh = refresh
            self.refreshStatus = refreshStatus
            self.atom = atom
            self.jsonFeed = jsonFeed
        }
    }

    /// A saved view the page lists: its name and query, and where it is read.
    public struct ViewLink: Sendable, Equatable {
        /// The view's name.
        public var name: String
        /// Its query, as written in feeds.yaml.
        public var query: String
        /// The page showing it (`/?view=NAME`).
        public var page: String
        /// Its Atom document (`/views/NAME.atom`).
        public var atom: String
        /// Its JSON Feed document (`/views/NAME.json`).
        public var jsonFeed: String

        /// The view `name` at the server's routes (or under `pagePath`).
        public init(name: String, query: String, pagePath: String = "/") {
            self.name = name
            self.query = query
            page = PageModel.link(pagePath, [("view", name)])
            atom = "/views/" + PageModel.percentEncoded(name) + ".atom"
            jsonFeed = "/views/" + PageModel.percentEncoded(name) + ".json"
        }
    }

    /// What the server knows beyond the entries; every field is optional.
    public struct Options: Sendable {
        /// Items per page (the query's `limit`); when `nil`, the number of entries of a page that
        /// has a next cursor (a full page), else the server's default, 20.
        public var perPage: Int?
        /// Items in the whole (filtered) stream, shown in the header when known.
        public var totalItems: Int?
        /// The cursor this page was read after (`/?after=…`), `nil` for the newest page.
        public var after: String?
        /// The query's `feed=` filters, kept in the "Older items" link.
        public var feedFilter: [String]
        /// The query's `source=` filters, likewise.
        public var sourceFilter: [String]
        /// The search (`q=`), shown in the search box and kept in the page's links and in what
        /// the script asks `/api/items` for.
        public var search: String?
        /// Why the search does not parse (`query:1:COL: error: …`, the query, a caret): shown
        /// instead of the stream.
        public var searchError: String?
        /// The saved view shown (`view=`), kept likewise.
        public var view: String?
        /// The configuration's saved views, listed on the page.
        public var views: [ViewLink]
        /// The server's routes.
        public var endpoints: Endpoints

        /// Options; the defaults suit the newest page of the unfiltered stream.
        public init(
            perPage: Int? = nil, totalItems: Int? = nil, after: String? = nil, feedFilter: [String] = [],
            sourceFilter: [String] = [], search: String? = nil, searchError: String? = nil, view: String? = nil,
            views: [ViewLink] = [], endpoints: Endpoints = Endpoints()
        ) {
            self.search = search
            self.searchError = searchError
            self.view = view
            self.views = views
            self.perPage = perPage
            self.totalItems = totalItems
            self.after = after
            self.feedFilter = feedFilter
            self.sourceFilter = sourceFilter
            self.endpoints = endpoints
        }
    }

    /// The page.
    /// - Parameters:
    ///   - entries: The page of the stream to show first (newest first), as the store reads it.
    ///   - nextCursor: The cursor after its last entry (`next_cursor`), `nil` on the last page.
    ///   - feeds: The feeds, as `feedagg feeds` lists them.
    ///   - options: Page size, total, the cursor and filters of the query, the routes.
    public static func render(
        entries: [StreamEntry], nextCursor: String?, feeds: [FeedStatus], options: Options = Options()
    ) -> String {
        template.render(PageModel(entries: entries, nextCursor: nextCursor, feeds: feeds, options: options))
    }

    /// The parsed template (``PageTemplate/text``); a test renders it, so a template that does not
    /// parse fails the tests, never a server.
    static let template: MustacheTemplate = {
        do {
            return try MustacheTemplate(string: PageTemplate.text)
        } catch {
            preconditionFailure("the page template does not parse: \(error)")
        }
    }()
}
