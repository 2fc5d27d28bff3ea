public import FeedCore
public import Foundation

/// An exec plugin's paging: page 1 is the feed's endpoint; each later page is the endpoint with
/// the `cursor` the previous page's `{"next": …}` line named. No `next` line ends the walk; a
/// cursor handed back twice is the engine's pagination-cycle error (the engine compares URLs, so
/// the URL holds the cursor and nothing else).
public struct ExecPagination: PaginationStrategy {
    /// Creates the strategy.
    public init() {}

    public var name: String { "cursor (the plugin's {\"next\": …} line)" }

    public func firstPage(_ endpoint: URL, pageSize: Int) -> URL { endpoint }

    public func nextPage(after page: PageOutcome) -> URL? {
        guard let cursor = page.nextCursor, !cursor.isEmpty else { return nil }
        return QueryEditor.setting("cursor", to: cursor, in: page.url)
    }

    public func remainingPages(after first: PageOutcome) -> [URL]? { nil }
}
