import FeedCore
import Foundation

/// The ranks of the elements that fill each entry field (lower is preferred; see ``EntryDraft``
/// and the mapping table in docs/sources-feed.md).
enum Rank {
    // id
    /// RSS `guid`, Atom `id`.
    static let id: UInt8 = 0
    /// RSS 1.0 `rdf:about`.
    static let rdfAbout: UInt8 = 1
    // title
    /// `title` (RSS, RSS 1.0, Atom).
    static let title: UInt8 = 0
    static let dcTitle: UInt8 = 1
    static let mediaTitle: UInt8 = 2
    // link
    /// RSS `link`, Atom `link rel="alternate"` (or no `rel`).
    static let link: UInt8 = 0
    /// `atom:link rel="alternate"` inside an RSS item.
    static let atomLinkInRSS: UInt8 = 1
    /// An RSS `guid` that is a permalink (`isPermaLink` absent or `true`) and an absolute http(s) URL.
    static let permalinkGUID: UInt8 = 2
    // published
    /// RSS `pubDate`, Atom `published`, Atom 0.3 `issued`.
    static let published: UInt8 = 0
    /// `dcterms:issued` says "published"; `dc:date` is any date of the resource.
    static let dctermsIssued: UInt8 = 1
    static let dcDate: UInt8 = 2
    /// Atom 0.3 `created`, `dcterms:created`.
    static let created: UInt8 = 3
    // updated
    /// Atom `updated`, Atom 0.3 `modified`.
    static let updated: UInt8 = 0
    static let dctermsModified: UInt8 = 1
    // authors
    /// RSS `author`, Atom `author`.
    static let author: UInt8 = 0
    static let dcCreator: UInt8 = 1
    static let dcAuthor: UInt8 = 2
    static let itunesAuthor: UInt8 = 3
    static let dcContributor: UInt8 = 4
    // image
    static let mediaThumbnail: UInt8 = 0
    /// An `image/*` RSS `enclosure` or Atom `link rel="enclosure"`.
    static let enclosure: UInt8 = 1
    /// A `media:content` with `medium="image"` or an `image/*` type.
    static let mediaContent: UInt8 = 2
    static let itunesImage: UInt8 = 3
    // summary
    /// RSS `description`, Atom `summary`.
    static let summary: UInt8 = 0
    static let dcDescription: UInt8 = 1
    /// `content:encoded`, Atom `content`.
    static let content: UInt8 = 2
    static let itunesSummary: UInt8 = 3
    static let itunesSubtitle: UInt8 = 4
    static let mediaDescription: UInt8 = 5
}

extension XMLFeedParser {
    /// One element inside an entry: a direct child offers its field; `media:*` counts at any
    /// depth (inside `media:group` and `media:content` too).
    mutating func readEntryChild(
        _ name: String, _ namespace: String, _ attributes: [XMLAttribute], depth: Int, base: URL
    ) throws(FeedParseError) {
        if namespace == XMLNamespace.media {
            try readMedia(name, attributes, base: base)
            return
        }
        guard depth == entryDepth + 1, draft != nil else { return }
        switch namespace {
        case "", XMLNamespace.rss1, XMLNamespace.rss090:
            try readRSS(name, attributes, base: base)
        case XMLNamespace.atom:
            try readAtom(name, attributes, base: base, legacy: false)
        case XMLNamespace.atom03:
            try readAtom(name, attributes, base: base, legacy: true)
        case XMLNamespace.dc:
            try readDublinCore(name)
        case XMLNamespace.dcterms:
            try readDCTerms(name)
        case XMLNamespace.content where name == "encoded":
            if draft?.wants(.summary, Rank.content) == true {
                draft?.offerSummary(try stream.textBytes(), markup: .html, rank: Rank.content)
            }
        case XMLNamespace.itunes:
            try readITunes(name, attributes, base: base)
        default:
            break
        }
    }

    /// RSS 0.9x/2.0 (no namespace) and RSS 1.0 item children.
    private mutating func readRSS(_ name: String, _ attributes: [XMLAttribute], base: URL) throws(FeedParseError) {
        switch name {
        case "title":
            guard draft?.wants(.title, Rank.title) == true else { return }
            let title = try stream.textBytes().withUnsafeBufferPointer { HTMLText.plainText(bytes: $0) }
            draft?.offer(Self.nonEmpty(title), to: .title, rank: Rank.title)
        case "link":
            guard draft?.wants(.link, Rank.link) == true else { return }
            draft?.offer(Self.resolve(try stream.text(), base)?.absoluteString, to: .link, rank: Rank.link)
        case "guid":
            let guid = ItemText.nonEmpty(try stream.text())
            draft?.offer(guid, to: .id, rank: Rank.id)
            if let guid, Self.attribute("isPermaLink", attributes)?.lowercased() ?? "true" == "true",
                let url = Self.absoluteHTTP(guid)
            {
                draft?.offer(url, to: .link, rank: Rank.permalinkGUID)
            }
        case "description":
            if draft?.wants(.summary, Rank.summary) == true {
                draft?.offerSummary(try stream.textBytes(), markup: .html, rank: Rank.summary)
            }
        case "pubDate":
            draft?.offer(FeedDate.parse(try stream.text()), to: .published, rank: Rank.published)
        case "author":
            draft?.offerAuthor(Self.rssAuthor(try stream.text()), rank: Rank.author)
        case "category":
            draft?.addCategory(try stream.text())
        case "enclosure":
            if Self.isImage(Self.attribute("type", attributes)) {
                offerImage(Self.attribute("url", attributes), base: base, rank: Rank.enclosure)
            }
        default:
            break
        }
    }

    /// Dublin Core elements (`http://purl.org/dc/elements/1.1/`).
    private mutating func readDublinCore(_ name: String) throws(FeedParseError) {
        switch name {
        case "title":
            if draft?.wants(.title, Rank.dcTitle) == true {
                draft?.offer(Self.nonEmpty(try stream.foldedText()), to: .title, rank: Rank.dcTitle)
            }
        case "creator", "author", "contributor":
            let rank = name == "creator" ? Rank.dcCreator : name == "author" ? Rank.dcAuthor : Rank.dcContributor
            if let author = Self.nonEmpty(try stream.foldedText()) { draft?.offerAuthor(FeedAuthor(name: author), rank: rank) }
        case "date":
            draft?.offer(FeedDate.parse(try stream.text()), to: .published, rank: Rank.dcDate)
        case "description":
            if draft?.wants(.summary, Rank.dcDescription) == true {
                draft?.offerSummary(try stream.textBytes(), markup: .html, rank: Rank.dcDescription)
            }
        case "subject":
            draft?.addCategory(try stream.text())
        default:
            break
        }
    }

    /// DCMI terms (`http://purl.org/dc/terms/`): the dates.
    private mutating func readDCTerms(_ name: String) throws(FeedParseError) {
        switch name {
        case "issued": draft?.offer(FeedDate.parse(try stream.text()), to: .published, rank: Rank.dctermsIssued)
        case "created": draft?.offer(FeedDate.parse(try stream.text()), to: .published, rank: Rank.created)
        case "modified": draft?.offer(FeedDate.parse(try stream.text()), to: .updated, rank: Rank.dctermsModified)
        default: break
        }
    }

    /// `text` when it is an absolute http(s) URL (a permalink guid), else `nil`.
    static func absoluteHTTP(_ text: String) -> String? {
        let lowered = text.prefix(8).lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let url = URL(string: text),
            url.host != nil
        else { return nil }
        return url.absoluteString
    }

    /// RSS `author` (`jo@example.com (Jo Smith)`): the name in parentheses, else the whole text.
    static func rssAuthor(_ text: String) -> FeedAuthor? {
        guard let trimmed = ItemText.oneLine(text) else { return nil }
        if let open = trimmed.firstIndex(of: "("), let close = trimmed.lastIndex(of: ")"), open < close,
            let name = ItemText.nonEmpty(String(trimmed[trimmed.index(after: open)..<close]))
        {
            return FeedAuthor(name: name)
        }
        return FeedAuthor(name: trimmed)
    }
}
