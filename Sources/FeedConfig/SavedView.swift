public import FeedCore
public import FeedSearch

/// One entry of feeds.yaml's top-level `views:` list: a named search (`{name, query}`) that
/// `show --view NAME` prints and `feedagg serve` publishes as `/views/NAME.atom` and `.json`.
/// Only the configuration's reader makes them (with the memberwise initializer).
public struct SavedView: Sendable {
    /// The unique view name (letters, digits, `.`, `_`, `-`), used in URLs.
    public var name: String
    /// The parsed query.
    public var query: SearchQuery
    /// The query as written.
    public var text: String
    /// Where the view's list item starts (its `-`).
    public var location: SourceLocation
}

extension FeedsDocument {
    /// The view named `name`, if the configuration declares one.
    public func view(named name: String) -> SavedView? {
        views.first { $0.name == name }
    }
}
