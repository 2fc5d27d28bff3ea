/// The URLs a served feed document links to (`feedagg serve`): itself, the page that lists the
/// same items for people, and the next, older page. A command line has none of them.
public struct FeedLinks: Sendable, Equatable {
    /// The document's own URL (Atom `link rel="self"`, JSON Feed `feed_url`).
    public var selfURL: String
    /// The web page of the same stream (Atom `link rel="alternate"`, JSON Feed `home_page_url`).
    public var alternateURL: String?
    /// The document of the next, older page (Atom `link rel="next"`, JSON Feed `next_url`);
    /// `nil` on the last page.
    public var nextURL: String?

    /// Creates links.
    public init(selfURL: String, alternateURL: String? = nil, nextURL: String? = nil) {
        self.selfURL = selfURL
        self.alternateURL = alternateURL
        self.nextURL = nextURL
    }
}
