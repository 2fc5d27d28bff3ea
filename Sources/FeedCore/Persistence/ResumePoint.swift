public import Foundation

/// Where an interrupted pull of a feed continues: the next page to fetch and what the walk knew
/// when it stopped. A ``PageSink`` stores one with every page it accepts, so a pull stopped by a
/// rate limit, a failure or a crash resumes from the page where it stopped instead of page 1.
public struct ResumePoint: Sendable, Equatable, Codable {
    /// The number of the next page (every page before it is stored).
    public var nextPage: Int
    /// When the page count is known (fan-out): the URL of every remaining page, in order.
    /// Otherwise only the next page's URL; later pages follow its next links.
    public var urls: [URL]
    /// Whether ``urls`` lists every remaining page.
    public var knownCount: Bool
    /// The page count page 1 announced, if it did.
    public var expectedPages: Int?
    /// The latest URLs already fetched (up to 64, oldest first), for the cycle guard.
    public var visited: [String]
    /// The `since` watermark the interrupted walk asked with, if any.
    public var watermark: Date?

    /// Creates a resume point.
    public init(
        nextPage: Int, urls: [URL], knownCount: Bool, expectedPages: Int? = nil, visited: [String] = [],
        watermark: Date? = nil
    ) {
        self.nextPage = nextPage
        self.urls = urls
        self.knownCount = knownCount
        self.expectedPages = expectedPages
        self.visited = visited
        self.watermark = watermark
    }
}
