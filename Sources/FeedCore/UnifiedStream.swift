import Foundation

/// One entry of the unified stream: an item and every feed that carries it.
public struct StreamEntry: Sendable {
    /// The item (from the first feed that carries it).
    public var item: FeedItem
    /// The first feed that carries it.
    public var feed: String
    /// Every feed that carries it, in feed order.
    public var feeds: [String]
    /// The source type of the first feed.
    public var source: String

    /// Creates an entry.
    public init(item: FeedItem, feed: String, feeds: [String], source: String) {
        self.item = item
        self.feed = feed
        self.feeds = feeds
        self.source = source
    }
}

/// One page of the unified stream.
public struct StreamPage: Sendable {
    /// 1-based page number.
    public var page: Int
    /// Entries per page.
    public var perPage: Int
    /// Entries in the whole stream.
    public var totalItems: Int
    /// Pages in the whole stream.
    public var totalPages: Int
    /// This page's entries.
    public var entries: [StreamEntry]
}

/// Merges feeds into one ordered, de-duplicated stream.
///
/// Order: items with a date (``FeedItem/sortDate``: updated, else published) come first, newest
/// first; ties keep feed order, then wire order (the sort is stable). Undated items (e.g.
/// members) follow, feed by feed in declaration order, each in wire order.
/// Duplicates are items with the same canonical URL (or, without a URL, the same id): the
/// entry is shown once, from its first feed, and lists every feed that carries it.
public enum UnifiedStream {
    /// A feed's items, in wire order, with its name and source type.
    public struct Input: Sendable {
        /// Feed name.
        public var feed: String
        /// Source type.
        public var source: String
        /// Items in wire order.
        public var items: [FeedItem]

        /// Creates an input.
        public init(feed: String, source: String, items: [FeedItem]) {
            self.feed = feed
            self.source = source
            self.items = items
        }
    }

    /// Merges `inputs` (in feed declaration order) into the ordered stream.
    public static func merge(_ inputs: [Input]) -> [StreamEntry] {
        var entries: [StreamEntry] = []
        var indexByKey: [String: Int] = [:]
        for input in inputs {
            for item in input.items {
                let key = dedupKey(item, source: input.source)
                if let existing = indexByKey[key] {
                    if !entries[existing].feeds.contains(input.feed) { entries[existing].feeds.append(input.feed) }
                    continue
                }
                indexByKey[key] = entries.count
                entries.append(StreamEntry(item: item, feed: input.feed, feeds: [input.feed], source: input.source))
            }
        }
        // Stable: Swift's sort is not guaranteed stable, so sort by (date desc, original position).
        let positioned = entries.enumerated().map { ($0.offset, $0.element) }
        let dated = positioned.filter { $0.1.item.sortDate != nil }.sorted { a, b in
            let da = a.1.item.sortDate ?? .distantPast
            let db = b.1.item.sortDate ?? .distantPast
            return da != db ? da > db : a.0 < b.0
        }
        let undated = positioned.filter { $0.1.item.sortDate == nil }
        return (dated + undated).map(\.1)
    }

    /// Page `page` (1-based) of `entries`, `perPage` per page.
    public static func page(_ entries: [StreamEntry], page: Int, perPage: Int) -> StreamPage {
        let perPage = max(1, perPage)
        let totalPages = (entries.count + perPage - 1) / perPage
        let start = min(entries.count, max(0, page - 1) * perPage)
        let end = min(entries.count, start + perPage)
        return StreamPage(
            page: page, perPage: perPage, totalItems: entries.count, totalPages: totalPages,
            entries: Array(entries[start..<end]))
    }

    /// The key two items must share to be the same entry.
    public static func dedupKey(_ item: FeedItem, source: String) -> String {
        if let url = item.url, let canonical = canonicalURL(url) { return "url:" + canonical }
        return "id:" + item.id
    }

    /// A URL normalised for comparison: lower-case scheme and host, no default port, no
    /// fragment, no trailing slash, `http` and `https` treated alike.
    public static func canonicalURL(_ text: String) -> String? {
        guard var components = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
            let host = components.host, !host.isEmpty
        else { return nil }
        let scheme = components.scheme?.lowercased() ?? "https"
        components.scheme = scheme == "http" ? "https" : scheme
        components.host = host.lowercased()
        if (scheme == "https" && components.port == 443) || (scheme == "http" && components.port == 80) {
            components.port = nil
        }
        components.fragment = nil
        var path = components.percentEncodedPath
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        if path == "/" { path = "" }
        components.percentEncodedPath = path
        return components.string
    }
}
