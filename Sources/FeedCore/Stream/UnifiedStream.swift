import Foundation

/// Merges feeds into one ordered, de-duplicated stream.
///
/// Order: items with a date (``FeedItem/sortDate``: updated, else published) newest first; ties
/// keep feed order, then wire order (the sort is stable). Undated items (e.g. members) are spread
/// evenly through the dated ones, each feed in its wire order: an undated feed of `U` items in a
/// stream of `D` dated items places its `k`-th item (from 1) after dated item `⌊k·D/(U+1)⌋`, so a
/// list without dates is neither buried after thousands of dated items nor flooding the top.
/// Undated items from several feeds that land in the same place keep feed order.
/// Duplicates are items with the same canonical URL (or, without a URL, the same id): the
/// entry is shown once, from its first feed, and lists every feed that carries it.
public enum UnifiedStream {
    /// A feed's items, in wire order, with its name and source type.
    public struct Input: Sendable {
        /// The feed's name from feeds.yaml; entries list it among the feeds that carry them.
        public var feed: String
        /// The feed's source type (`github.repos`), shown beside each entry.
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
        // Indices with their dates are sorted, not the (large) entries themselves.
        var keyed: [(date: Double, index: Int)] = []
        keyed.reserveCapacity(entries.count)
        var undatedIndices: [Int] = []
        for (index, entry) in entries.enumerated() {
            if let date = entry.item.sortDate {
                keyed.append((date.timeIntervalSinceReferenceDate, index))
            } else {
                undatedIndices.append(index)
            }
        }
        keyed.sort { a, b in a.date != b.date ? a.date > b.date : a.index < b.index }
        let dated = keyed.map { ($0.index, entries[$0.index]) }
        let undated = undatedIndices.map { ($0, entries[$0]) }
        guard !undated.isEmpty, !dated.isEmpty else { return (dated + undated).map(\.1) }
        // slot[i] = undated entries placed right after dated[i - 1] (slot 0: before the first).
        var slots = [[StreamEntry]](repeating: [], count: dated.count + 1)
        var byFeed: [(feed: String, entries: [StreamEntry])] = []
        for (_, entry) in undated {
            if let index = byFeed.firstIndex(where: { $0.feed == entry.feed }) {
                byFeed[index].entries.append(entry)
            } else {
                byFeed.append((entry.feed, [entry]))
            }
        }
        for (_, entries) in byFeed {
            for (k, entry) in entries.enumerated() {
                slots[(k + 1) * dated.count / (entries.count + 1)].append(entry)
            }
        }
        var out: [StreamEntry] = []
        out.reserveCapacity(entries.count)
        out.append(contentsOf: slots[0])
        for (index, (_, entry)) in dated.enumerated() {
            out.append(entry)
            out.append(contentsOf: slots[index + 1])
        }
        return out
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
        alreadyCanonical(text) ?? canonicalURLByComponents(text)
    }

    /// ``canonicalURL(_:)`` through `URLComponents`, for any URL.
    static func canonicalURLByComponents(_ text: String) -> String? {
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

    /// `text` itself when it is already in canonical form and plain enough that `URLComponents`
    /// would give it back unchanged: `https://`, a lowercase host of letters, digits, `.` and `-`
    /// without a port, no trailing slash, no fragment, and only characters URLs allow unescaped
    /// (no `%`, `@`, brackets or spaces). Most item URLs are; the rest take the general path.
    /// (`canonicalURLMatchesTheGeneralPath` in FeedCoreTests holds the two paths to one answer.)
    static func alreadyCanonical(_ text: String) -> String? {
        var utf8 = text.utf8[...]
        let prefix = "https://".utf8
        guard utf8.starts(with: prefix) else { return nil }
        utf8 = utf8.dropFirst(prefix.count)
        var inHost = true
        var hostLength = 0
        var last: UInt8 = 0
        var pathEnd: UInt8 = 0
        var inQuery = false
        for byte in utf8 {
            if inHost {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."),
                    UInt8(ascii: "-"):
                    hostLength += 1
                case UInt8(ascii: "/"), UInt8(ascii: "?"):
                    inHost = false
                    inQuery = byte == UInt8(ascii: "?")
                default:
                    return nil
                }
            } else {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "!"), UInt8(ascii: "$"),
                    UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
                    UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
                    break
                case UInt8(ascii: "?"):
                    if !inQuery { pathEnd = last }
                    inQuery = true
                default:
                    return nil
                }
            }
            last = byte
        }
        guard hostLength > 0, text.utf8.last != UInt8(ascii: "?") else { return nil }
        // A trailing slash of the path (before any query) is dropped by the general path.
        if !inHost && !inQuery && last == UInt8(ascii: "/") { return nil }
        if inQuery && pathEnd == UInt8(ascii: "/") { return nil }
        return text
    }
}
