public import FeedCore
public import Foundation

/// One stream entry as both feed formats show it (``AtomRenderer``, ``JSONFeedRenderer``): its
/// stable id, its dates and its links, decided once so that the two formats agree.
public struct SyndicationEntry: Sendable {
    /// The `tag:` URI of ``FeedIdentity/entryID(_:)``.
    public var id: String
    /// The item's title.
    public var title: String
    /// The item's one-line description, plain text.
    public var summary: String?
    /// The item's web page (`http`/`https` only: any other scheme, e.g. `javascript:`, is dropped).
    public var url: String?
    /// The author's name.
    public var authorName: String?
    /// The author's web page (`http`/`https` only).
    public var authorURL: String?
    /// The author's avatar (`http`/`https` only).
    public var authorAvatar: String?
    /// The item's image (a 500px photo, a member's avatar), unless it is only the author's avatar
    /// (`http`/`https` only).
    public var image: String?
    /// `image/jpeg` when the image is known to be a JPEG (a `.jpg`/`.jpeg` path, or a photos
    /// source, whose CDN serves JPEG); else `nil` (unknown: no type is claimed).
    public var imageType: String?
    /// The `updated` date: see ``updated(of:)``.
    public var updated: Date
    /// The creation date, when the item has one distinct from ``updated``.
    public var published: Date?
    /// Every feed carrying the item, in feed order (the provenance, as categories / tags).
    public var feeds: [String]
    /// The labels of the configuration's tag rules (``StreamEntry/tags``), after the feeds as
    /// categories / tags; a label that is also a feed's name is not repeated.
    public var labels: [String]

    /// The date of an undated item that the store never saw (a `pull --limit` entry read from the
    /// network before it was stored): the Unix epoch, 1970-01-01T00:00:00Z, which says "unknown"
    /// and never moves. It is never the time of the request.
    public static let unknownDate = Date(timeIntervalSince1970: 0)

    /// The entry of `entry`.
    public init(_ entry: StreamEntry) {
        let item = entry.item
        id = FeedIdentity.entryID(entry)
        title = item.title
        summary = item.summary.flatMap { $0.isEmpty ? nil : $0 }
        url = Self.webURL(item.url)
        authorName = item.author?.name
        authorURL = Self.webURL(item.author?.url)
        authorAvatar = Self.webURL(item.author?.avatarURL)
        let avatar = Self.webURL(item.author?.avatarURL)
        let image = Self.webURL(item.imageURL).flatMap { $0 == avatar ? nil : $0 }
        self.image = image
        imageType = image.flatMap { Self.isJPEG($0, source: entry.source) ? "image/jpeg" : nil }
        let updated = Self.updated(of: entry)
        self.updated = updated
        published = item.published.flatMap { $0 == updated ? nil : $0 }
        feeds = entry.feeds
        labels = entry.tags.filter { !entry.feeds.contains($0) }
    }

    /// When the entry last changed: the item's `updated` date, else its `published` date, else
    /// (an undated item: a GitHub member) when the store first saw it, else ``unknownDate``.
    /// Each is fixed once known, so `updated` does not move between pulls unless the item does.
    public static func updated(of entry: StreamEntry) -> Date {
        entry.item.updated ?? entry.item.published ?? entry.firstSeen ?? unknownDate
    }

    /// The document's `updated`: the newest entry's, ``unknownDate`` for no entry (never "now").
    public static func newest(_ entries: [SyndicationEntry]) -> Date {
        entries.map(\.updated).max() ?? unknownDate
    }

    /// `text` when it is an absolute `http` or `https` URL.
    static func webURL(_ text: String?) -> String? {
        guard let text, let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon].lowercased()
        return (scheme == "http" || scheme == "https") && text[colon...].hasPrefix("://") ? text : nil
    }

    static func isJPEG(_ url: String, source: String) -> Bool {
        if source.hasPrefix("photos.") { return true }
        let path = (URL(string: url)?.path ?? url).lowercased()
        return path.hasSuffix(".jpg") || path.hasSuffix(".jpeg")
    }
}
