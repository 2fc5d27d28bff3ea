public import Foundation

/// Who made an item.
public struct FeedAuthor: Sendable, Hashable, Codable {
    /// Display name or login.
    public var name: String
    /// A web page for the author.
    public var url: String?
    /// An avatar image.
    public var avatarURL: String?

    /// An author known by `name` alone, or with a profile page and an avatar.
    public init(name: String, url: String? = nil, avatarURL: String? = nil) {
        self.name = name
        self.url = url
        self.avatarURL = avatarURL
    }
}

/// One entry of a feed, in the source-independent shape every output uses.
public struct FeedItem: Sendable, Hashable {
    /// Stable identifier, unique within its source type (e.g. `github.repos:10270250`).
    public var id: String
    /// Headline (repository name, login, photo name).
    public var title: String
    /// One-line description, if any.
    public var summary: String?
    /// Canonical web URL of the item.
    public var url: String?
    /// Who made it.
    public var author: FeedAuthor?
    /// An image representing the item (photo, avatar).
    public var imageURL: String?
    /// When the item was created.
    public var published: Date?
    /// When the item last changed.
    public var updated: Date?
    /// The item's original JSON, byte for byte as the API sent it, so no field is lost.
    public var raw: Data?

    /// An item: `id` and `title` are required, everything else is what the source knows.
    public init(
        id: String, title: String, summary: String? = nil, url: String? = nil, author: FeedAuthor? = nil,
        imageURL: String? = nil, published: Date? = nil, updated: Date? = nil, raw: Data? = nil
    ) {
        self.id = id
        self.title = title
        self.summary = summary
        self.url = url
        self.author = author
        self.imageURL = imageURL
        self.published = published
        self.updated = updated
        self.raw = raw
    }

    /// The date the unified stream sorts by: `updated`, else `published`.
    public var sortDate: Date? { updated ?? published }
}
