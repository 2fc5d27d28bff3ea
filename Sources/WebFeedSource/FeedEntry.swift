public import FeedCore
public import Foundation
import StableHash

/// One entry of a feed document, in the fields every format shares.
public struct FeedEntry: Sendable, Hashable {
    /// `guid` (RSS 2.0), `rdf:about` (RSS 1.0), `id` (Atom, JSON Feed), when present.
    public var guid: String?
    /// The title as plain text.
    public var title: String?
    /// The entry's web page, absolute (Atom `rel="alternate"` resolved against `xml:base` and the
    /// document's URL).
    public var link: String?
    /// When it was first published.
    public var published: Date?
    /// When it last changed.
    public var updated: Date?
    /// Its authors, in document order.
    public var authors: [FeedAuthor]
    /// Its categories (RSS `category`, `dc:subject`, Atom `term`, JSON Feed `tags`).
    public var categories: [String]
    /// The first image: an image enclosure or attachment, `media:thumbnail`, an image
    /// `media:content`, `itunes:image`, JSON Feed `image`.
    public var imageURL: String?
    /// The summary (or, without one, the content) as plain text: markup stripped, entities
    /// decoded, whitespace folded.
    public var summary: String?

    /// Creates an entry.
    public init(
        guid: String? = nil, title: String? = nil, link: String? = nil, published: Date? = nil, updated: Date? = nil,
        authors: [FeedAuthor] = [], categories: [String] = [], imageURL: String? = nil, summary: String? = nil
    ) {
        self.guid = guid
        self.title = title
        self.link = link
        self.published = published
        self.updated = updated
        self.authors = authors
        self.categories = categories
        self.imageURL = imageURL
        self.summary = summary
    }

    /// The stable identity: the guid/id, else the link, else `digest:` and a 64-bit FNV-1a
    /// digest (16 hex digits) of the title, a newline and the date (RFC 3339, or empty).
    public var stableID: String {
        if let guid = ItemText.nonEmpty(guid) { return guid }
        if let link = ItemText.nonEmpty(link) { return link }
        let date = (published ?? updated).map(ISO8601.string(from:)) ?? ""
        return "digest:" + FNV1a.hex((title ?? "") + "\n" + date)
    }

    /// The title the stream shows: the title, else the summary's first 80 characters, else the
    /// link, else `(untitled)`.
    public var displayTitle: String {
        if let title = ItemText.nonEmpty(title) { return title }
        if let summary = ItemText.nonEmpty(summary) {
            return summary.count > 80 ? String(summary.prefix(79)) + "…" : summary
        }
        return ItemText.nonEmpty(link) ?? "(untitled)"
    }
}
