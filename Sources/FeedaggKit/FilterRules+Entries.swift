public import FeedCore
public import FeedSearch
public import Foundation

extension FilterRules {
    /// `entries` as the rules leave them, for entries that do not come from the store (`pull
    /// --limit`'s newest items, read from the network): the ones at least one of their feeds
    /// keeps, each listing only those feeds and labelled by the tag rules that apply to them.
    /// The store engines do the same in SQL; this is the reference evaluation
    /// (``FilterRules/keeps(_:feed:now:)``, ``FilterRules/tags(for:feeds:now:)``).
    public func applied(to entries: [StreamEntry], now: Date) -> [StreamEntry] {
        guard hidesItems || tagsItems else { return entries }
        return entries.compactMap { entry in
            let feeds = entry.feeds.isEmpty ? [entry.feed] : entry.feeds
            let kept = feeds.filter { keeps(Self.document(entry, feeds: [$0]), feed: $0, now: now) }
            guard let first = kept.first else { return nil }
            var shown = entry
            shown.feeds = kept
            if !kept.contains(entry.feed) { shown.feed = first }
            shown.tags = tags(for: Self.document(entry, feeds: kept), feeds: kept, now: now)
            return shown
        }
    }

    /// What a query is matched against for `entry` as a copy of `feeds`.
    static func document(_ entry: StreamEntry, feeds: [String]) -> SearchDocument {
        let item = entry.item
        return SearchDocument(
            title: item.title, summary: item.summary, author: item.author?.name, feeds: feeds, source: entry.source,
            date: item.sortDate)
    }
}
