public import Foundation

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
    /// When the store first saw the item (its first pull, kept across later pulls); `nil` when the
    /// entry does not come from the store (a `pull --limit` stream read from the network).
    public var firstSeen: Date?
    /// The labels the configuration's tag rules give it (`{tag: LABEL, when: QUERY}`), in rule order.
    public var tags: [String]

    /// Creates an entry.
    public init(
        item: FeedItem, feed: String, feeds: [String], source: String, firstSeen: Date? = nil, tags: [String] = []
    ) {
        self.tags = tags
        self.item = item
        self.feed = feed
        self.feeds = feeds
        self.source = source
        self.firstSeen = firstSeen
    }
}
