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
