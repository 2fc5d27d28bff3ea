public import Foundation

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
    /// No consistency check by default.
    public func inconsistency(in page: PageOutcome, first: PageOutcome, expectedPages: Int?) -> String? { nil }
    /// Pages 2…`count` built from the first page's URL, for a remembered page count (early fan-out); `nil` when the strategy cannot address a page by number.
    public func speculativePages(from first: URL, through count: Int) -> [URL]? { nil }
}
