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
    /// The validators page 1 of the interrupted walk answered with, if any: the resumed walk asks
    /// page 1 again with them at its end, to learn whether the listing's head moved meanwhile
    /// (see ``Head``). `nil` in checkpoints written before this was kept.
    public var head: Head?

    /// Page 1's validators (`ETag`, `Last-Modified`) as the interrupted walk fetched it.
    ///
    /// Items added at (or removed from) the head of an offset-paged listing between the interrupted
    /// walk's page 1 and the resumed walk shift every later page, so an item can slip past both
    /// walks. A resumed walk therefore ends by asking page 1 with these validators: a `304` says the
    /// head did not move (one cheap request); any other answer re-walks the head until a page of
    /// items it already holds.
    public struct Head: Sendable, Equatable, Codable {
        /// Page 1's `ETag`.
        public var etag: String?
        /// Page 1's `Last-Modified`.
        public var lastModified: String?

        /// The validators, or `nil` when there are none.
        public init?(etag: String?, lastModified: String?) {
            guard etag != nil || lastModified != nil else { return nil }
            self.etag = etag
            self.lastModified = lastModified
        }
    }

    /// Creates a resume point.
    public init(
        nextPage: Int, urls: [URL], knownCount: Bool, expectedPages: Int? = nil, visited: [String] = [],
        watermark: Date? = nil, head: Head? = nil
    ) {
        self.nextPage = nextPage
        self.urls = urls
        self.knownCount = knownCount
        self.expectedPages = expectedPages
        self.visited = visited
        self.watermark = watermark
        self.head = head
    }
}
