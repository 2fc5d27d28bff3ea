import Foundation

/// Receives a feed's pages as the engine accepts them, in page order, so that a pull's memory is
/// bounded by the pages in flight rather than by the feed's size (a store writes each page as it
/// comes and makes the feed's pull visible at once when it ends).
public protocol PageSink: Sendable {
    /// Takes `page` of `feed`. Throwing stops the feed's walk with a ``FeedError/Reason/notSaved(_:)``.
    func accept(_ page: AcceptedPage, of feed: Feed) async throws

    /// Whether the sink needs the items' raw JSON (``FeedItem/raw``). When it does not, the engine
    /// takes each item's digest and drops `raw` as soon as the page is decoded, which frees the
    /// page's body while the page waits for the sink. Default `true`.
    var keepsRawJSON: Bool { get }
}

extension PageSink {
    /// Raw JSON is kept unless a sink says otherwise.
    public var keepsRawJSON: Bool { true }
}

/// What a fetched page keeps for whoever takes it.
enum PageRetention: Sendable {
    /// No page sink: the body stays in the cache entry (the pull's result holds the cache), and
    /// the items keep their raw JSON.
    case everything
    /// A sink that stores raw JSON: the items keep it, the body is not kept apart.
    case items
    /// A sink that keeps no raw JSON: each item's digest is taken and its `raw` dropped at decode.
    case itemsWithoutRaw

    /// The retention for a walk with `sink`.
    init(sink: (any PageSink)?) {
        guard let sink else {
            self = .everything
            return
        }
        self = sink.keepsRawJSON ? .items : .itemsWithoutRaw
    }
}
