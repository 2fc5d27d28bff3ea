public import FeedCore
import Foundation

/// The stable identifiers of feedagg's Atom and JSON Feed documents (docs/feed-formats.md).
///
/// - An entry's id is a `tag:` URI (RFC 4151) of the source type of the feed it is shown from and
///   the item's own stable id, percent-encoded: `tag:feedagg,2026:github.repos/github.repos:10270250`.
///   Item ids never change between pulls (the source derives them from the API's own id), so
///   neither does the entry id.
/// - A document's id names what it lists, not when: `tag:feedagg,2026:stream/a,b,c` for the
///   merged stream of feeds `a`, `b`, `c` (the configuration's feeds in declaration order, or the
///   `--feed` selection), with `?source=t1,t2` when `--source` narrows it, `view=NAME` for a saved
///   view and `q=QUERY` for a search (joined with `&`), so a search or a view is a feed of its own.
public struct FeedIdentity: Sendable, Equatable {
    /// `tag:feedagg,2026:`, the start of every id feedagg mints (the date is fixed: ids never move).
    public static let tagPrefix = "tag:feedagg,2026:"

    /// The feeds the document lists, in stream order.
    public var feeds: [String]
    /// The `--source` types that narrow it (none: every source).
    public var sources: [String]
    /// The saved view it shows (`--view`, `/views/NAME.atom`), if any.
    public var view: String?
    /// The search it shows (`--query`, `?q=`), as written, if any.
    public var search: String?

    /// The identity of the stream of `feeds`, narrowed to `sources` when not empty, to the saved
    /// `view` and to the `search` when given.
    public init(feeds: [String], sources: [String] = [], view: String? = nil, search: String? = nil) {
        self.feeds = feeds
        self.sources = sources
        self.view = view
        self.search = search.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The document's id: `tag:feedagg,2026:stream/<feed>,<feed>…[?source=<type>,…][&view=NAME][&q=QUERY]`.
    public var id: String {
        var id = Self.tagPrefix + "stream/" + feeds.map(Self.encoded).joined(separator: ",")
        var narrowing: [String] = []
        if !sources.isEmpty { narrowing.append("source=" + sources.map(Self.encoded).joined(separator: ",")) }
        if let view { narrowing.append("view=" + Self.encoded(view)) }
        if let search { narrowing.append("q=" + Self.encoded(search)) }
        if !narrowing.isEmpty { id += "?" + narrowing.joined(separator: "&") }
        return id
    }

    /// The document's title: `feedagg: a, b, c` (`feedagg` alone for no feed); a view's is
    /// `feedagg: view NAME`; a search adds `, search: QUERY`.
    public var title: String {
        let base =
            if let view { "feedagg: view \(view)" } else if feeds.isEmpty { "feedagg" } else { "feedagg: " + feeds.joined(separator: ", ") }
        return base + (search.map { ", search: " + $0 } ?? "")
    }

    /// The entry id of `entry`: `tag:feedagg,2026:<source type>/<item id>`, both percent-encoded.
    public static func entryID(_ entry: StreamEntry) -> String {
        tagPrefix + encoded(entry.source) + "/" + encoded(entry.item.id)
    }

    /// `text` with every character but RFC 3986's unreserved ones, `:` and `@` (all allowed in a
    /// tag URI's specific part) percent-encoded as UTF-8; `,` is encoded, so it can separate names.
    static func encoded(_ text: String) -> String {
        PercentEncoding.encoded(text, alsoKeeping: [UInt8(ascii: ":"), UInt8(ascii: "@")])
    }
}
