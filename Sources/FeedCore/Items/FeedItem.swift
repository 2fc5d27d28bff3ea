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
    public var id: String { didSet { digestOfDroppedRaw = nil } }
    /// Headline (repository name, login, photo name).
    public var title: String { didSet { digestOfDroppedRaw = nil } }
    /// One-line description, if any.
    public var summary: String? { didSet { digestOfDroppedRaw = nil } }
    /// Canonical web URL of the item.
    public var url: String? { didSet { digestOfDroppedRaw = nil } }
    /// Who made it.
    public var author: FeedAuthor? { didSet { digestOfDroppedRaw = nil } }
    /// An image representing the item (photo, avatar).
    public var imageURL: String? { didSet { digestOfDroppedRaw = nil } }
    /// When the item was created.
    public var published: Date? { didSet { digestOfDroppedRaw = nil } }
    /// When the item last changed.
    public var updated: Date? { didSet { digestOfDroppedRaw = nil } }
    /// The item's original JSON, byte for byte as the API sent it, so no field is lost.
    public var raw: Data? { didSet { digestOfDroppedRaw = nil } }
    /// ``contentDigest`` as it was when ``dropRaw()`` let go of ``raw`` (so a store that keeps no
    /// raw JSON gets the digest of the item as it came); cleared by any later change of a field.
    package private(set) var digestOfDroppedRaw: Int64?

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

    /// Takes the content digest, then drops ``raw``: the engine does this when a page is decoded
    /// for a store that keeps no raw JSON, so the page's body (which every item's `raw` slices)
    /// is freed at once instead of when the store has written the page. ``contentDigest`` stays
    /// that of the item as it came. Nothing happens to an item without `raw`.
    package mutating func dropRaw() {
        guard raw != nil else { return }
        let digest = contentDigest
        raw = nil
        digestOfDroppedRaw = digest
    }

    /// The date the unified stream sorts by: `updated`, else `published`.
    public var sortDate: Date? { updated ?? published }
}
