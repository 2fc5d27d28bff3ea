import FeedConfig
import FeedCore
import FeedSearch
import FeedStorage

extension Aggregator {
    /// `feedagg filters`: each filter rule of the configuration with what it matches in the store,
    /// and the stream's size with and without the rules (``FilterPreview``). Reads only.
    ///
    /// A rule's matches are its query's over the feeds it applies to: a feed's own rule over that
    /// feed, a rule of `settings:` over every declared feed, as a search of those feeds would
    /// find them (``StreamSelection/query``), whatever the other rules do.
    public func previewFilters(_ settings: ShowSettings) throws -> FilterPreview {
        let listing = try openListing(settings)
        defer { if settings.lentStore == nil { try? listing.store.close() } }
        guard let document = listing.document else {
            throw ConfigError("`feedagg filters` reads the rules of a feeds.yaml: none was found", at: nil)
        }
        let store = listing.store
        let now = settings.now
        func read(_ feeds: [String], _ selection: StreamSelection, limit: Int) throws -> StoredStreamPage {
            try store.stream(feeds: feeds, sources: nil, selection: selection, after: nil, limit: limit)
        }
        var scoped: [(feed: String?, rule: FilterRule, feeds: [String])] = document.filters.global.map {
            (nil, $0, listing.feeds)
        }
        for feed in document.feeds where listing.feeds.contains(feed.name) {
            scoped += feed.filters.map { (feed.name, $0, [feed.name]) }
        }
        let rules = try scoped.map { scope in
            let page = try read(scope.feeds, StreamSelection(query: scope.rule.query, now: now), limit: FilterPreview.exampleCount)
            return FilterPreview.Rule(
                feed: scope.feed, rule: scope.rule, matches: page.totalItems, examples: page.entries.map(\.item.title))
        }
        let with = try read(listing.feeds, StreamSelection(rules: document.filters, now: now), limit: 1).totalItems
        let without = try read(listing.feeds, StreamSelection(now: now), limit: 1).totalItems
        return FilterPreview(rules: rules, shownWithRules: with, shownWithoutRules: without)
    }
}
