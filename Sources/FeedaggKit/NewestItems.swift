public import FeedCore
import FeedStore
import Foundation

/// What `pull --limit N` found: the newest entries of the stream and how each feed was walked.
public struct NewestItems: Sendable {
    /// The `N` asked for.
    public var limit: Int
    /// The newest entries, in stream order (at most ``limit``).
    public var entries: [StreamEntry]
    /// Per feed, in the pull's order: pages, requests, whether it was walked lazily, whether it stopped early.
    /// Their ``FeedResult/items`` are empty unless ``PullSettings/retainItems`` is set.
    public var feeds: [LazyUnifiedStream.FeedReport]

    /// The entries in `format`: JSON carries `limit` and a `null` `next_cursor` (the entries come
    /// from the network, not from a position in the store; `feedagg show` pages the store). Atom
    /// and JSON Feed documents are named by `identity` and carry no cursor.
    public func rendered(
        _ format: OutputFormat, style: TableStyle = TableStyle(terminalWidth: 120), identity: FeedIdentity = FeedIdentity(feeds: [])
    ) -> RenderedOutput {
        let page = StreamPage(page: 1, perPage: limit, totalItems: entries.count, totalPages: 1, entries: entries)
        var output = StreamRenderer.render(
            page, format: format, style: style, extra: [("limit", .int(limit)), ("next_cursor", .null)], identity: identity)
        if format == .table, !entries.isEmpty {
            // The page footer says nothing true about a limited pull: replace it.
            output.footer = ["the \(Plural.of(entries.count, "newest item", plural: "newest items")) (pull --limit \(limit))"]
        }
        return output
    }
}
