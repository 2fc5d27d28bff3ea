/// A declared feed, ready to pull: its name, its source instance and common settings.
public struct Feed: Sendable {
    /// The source instance built from the feed's parameters.
    public var source: any FeedSource
    /// Name, base URL, page size, page limit.
    public var context: FeedContext

    /// Creates a feed.
    public init(source: any FeedSource, context: FeedContext) {
        self.source = source
        self.context = context
    }

    /// The feed's name.
    public var name: String { context.name }
}
