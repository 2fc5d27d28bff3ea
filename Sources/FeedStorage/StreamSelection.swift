public import FeedCore
public import FeedSearch
public import Foundation

/// What a stream read selects from its listing beyond the feeds: a search query (`show --query`,
/// `/api/items?q=`, a saved view) and the filter rules of the configuration.
///
/// The rules decide, per feed, which copies of an item the feed keeps; the stream is merged from
/// the kept copies (an item is shown when at least one of its feeds keeps it, listing those
/// feeds). The query is then matched against each merged entry: its shown copy's text, date and
/// source, and every feed carrying it. `total_items` counts the entries that match.
public struct StreamSelection: Sendable, Hashable {
    /// The search (``SearchQuery/everything`` for none).
    public var query: SearchQuery
    /// The filter rules.
    public var rules: FilterRules
    /// The time ages (`newer:7d`) count back from; `nil`: the time of the read.
    public var now: Date?

    /// Creates a selection.
    public init(query: SearchQuery = .everything, rules: FilterRules = .none, now: Date? = nil) {
        self.query = query
        self.rules = rules
        self.now = now
    }

    /// Everything the listing holds.
    public static let everything = StreamSelection()

    /// Whether the selection narrows the stream (a query, or a rule that hides items).
    public var narrows: Bool { query != .everything || rules.hidesItems }

    /// Whether what the selection matches moves only with the store: no age (`newer:7d`) counted
    /// from the time of the read.
    package var isFixedBetweenChanges: Bool {
        now != nil || !(query.hasAge || rules.global.contains { $0.query.hasAge }
            || rules.feeds.values.contains { $0.contains { $0.query.hasAge } })
    }
}

extension StreamSelection {
    /// `entries` with the labels of the tag rules that match them (``StreamEntry/tags``): a rule
    /// given under a feed labels the entries that feed carries; a global one, any entry.
    public func tagged(_ entries: [StreamEntry]) -> [StreamEntry] {
        guard rules.tagsItems else { return entries }
        let now = now ?? Date()
        return entries.map { entry in
            var entry = entry
            entry.tags = rules.tags(for: Self.document(of: entry), feeds: entry.feeds, now: now)
            return entry
        }
    }

    /// What the query language sees of an entry (docs/query.md).
    public static func document(of entry: StreamEntry) -> SearchDocument {
        SearchDocument(
            title: entry.item.title, summary: entry.item.summary, author: entry.item.author?.name, feeds: entry.feeds,
            source: entry.source, date: entry.item.updated ?? entry.item.published)
    }
}
