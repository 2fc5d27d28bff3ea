import FeedCore
import Foundation

extension XMLFeedParser {
    /// Atom 1.0 entry children, and Atom 0.3's (`legacy`): `issued`, `modified`, `created`, and
    /// content constructs with a `mode`. Atom elements inside an RSS item (`atom:link`,
    /// `atom:author`) are read here too.
    mutating func readAtom(_ name: String, _ attributes: [XMLAttribute], base: URL, legacy: Bool) throws(FeedParseError) {
        switch name {
        case "id":
            draft?.offer(ItemText.nonEmpty(try stream.text()), to: .id, rank: Rank.id)
        case "title":
            guard draft?.wants(.title, Rank.title) == true, let (bytes, markup) = try construct(attributes, legacy: legacy)
            else { return }
            let title = bytes.withUnsafeBufferPointer {
                markup == .html ? HTMLText.plainText(bytes: $0) : HTMLText.fold(bytes: $0)
            }
            draft?.offer(Self.nonEmpty(title), to: .title, rank: Rank.title)
        case "link":
            let rel = Self.attribute("rel", attributes)?.lowercased() ?? "alternate"
            guard let href = Self.attribute("href", attributes), let resolved = Self.resolve(href, base) else { return }
            if rel == "alternate" {
                let inRSS = format == .rss2 || format == .rss1
                draft?.offer(resolved.absoluteString, to: .link, rank: inRSS ? Rank.atomLinkInRSS : Rank.link)
            } else if rel == "enclosure", Self.isImage(Self.attribute("type", attributes)) {
                draft?.offer(resolved.absoluteString, to: .image, rank: Rank.enclosure)
            }
        case "published", "issued":
            guard name == "issued" ? legacy : !legacy else { return }
            draft?.offer(FeedDate.parse(try stream.text()), to: .published, rank: Rank.published)
        case "updated", "modified":
            guard name == "modified" ? legacy : !legacy else { return }
            draft?.offer(FeedDate.parse(try stream.text()), to: .updated, rank: Rank.updated)
        case "created" where legacy:
            draft?.offer(FeedDate.parse(try stream.text()), to: .published, rank: Rank.created)
        case "author":
            let person = try readPerson(base: base)
            draft?.offerAuthor(person, rank: Rank.author)
        case "category":
            draft?.addCategory(Self.attribute("label", attributes) ?? Self.attribute("term", attributes))
        case "summary":
            guard draft?.wants(.summary, Rank.summary) == true, let (bytes, markup) = try construct(attributes, legacy: legacy)
            else { return }
            draft?.offerSummary(bytes, markup: markup, rank: Rank.summary)
        case "content":
            guard Self.attribute("src", attributes) == nil, draft?.wants(.summary, Rank.content) == true,
                let (bytes, markup) = try construct(attributes, legacy: legacy)
            else { return }
            draft?.offerSummary(bytes, markup: markup, rank: Rank.content)
        default:
            break
        }
    }

    /// The bytes of a text construct (`title`, `summary`, `content`) and how to read them.
    ///
    /// Atom 1.0: `type="html"` (or an HTML media type) is escaped HTML; `text` (the default),
    /// `xhtml` (whose markup libxml2 has parsed: its text, a space per block) and other types
    /// are text. Atom 0.3: `type` is a media type (default `text/plain`) and `mode` says how the
    /// value is written: `xml` (the default: inline, its text read), `escaped` (HTML when the
    /// type is HTML) or `base64` (decoded; `nil` when it is not base64 or not UTF-8 text).
    private func construct(_ attributes: [XMLAttribute], legacy: Bool) throws(FeedParseError)
        -> ([UInt8], EntryDraft.Markup)?
    {
        let type = Self.attribute("type", attributes)?.lowercased() ?? (legacy ? "text/plain" : "text")
        let isHTML = type == "html" || type.hasSuffix("/html")
        guard legacy else { return (try stream.textBytes(), isHTML ? .html : .text) }
        switch Self.attribute("mode", attributes)?.lowercased() ?? "xml" {
        case "escaped":
            return (try stream.textBytes(), isHTML ? .html : .text)
        case "base64":
            let encoded = try stream.text()
            guard let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters),
                String(validating: data, as: UTF8.self) != nil
            else { return nil }
            return ([UInt8](data), isHTML ? .html : .text)
        default:
            return (try stream.textBytes(), .text)
        }
    }

    /// Reads an Atom person construct (1.0: `name`, `uri`, `email`; 0.3: `url` for `uri`),
    /// leaving the reader on its end tag.
    mutating func readPerson(base: URL) throws(FeedParseError) -> FeedAuthor? {
        if stream.isEmptyElement { return nil }
        let start = stream.depth
        var name: String?
        var uri: String?
        var email: String?
        while try stream.read() {
            let type = stream.nodeType
            if type == XMLStream.NodeType.endElement, stream.depth == start { break }
            guard type == XMLStream.NodeType.element, stream.depth == start + 1 else { continue }
            switch stream.localName {
            case "name": name = Self.nonEmpty(try stream.foldedText())
            case "uri", "url":
                let resolved = Self.resolve(try stream.text(), base)?.absoluteString
                if uri == nil { uri = resolved }
            case "email": email = ItemText.nonEmpty(try stream.text())
            default: break
            }
        }
        guard let display = name ?? email else { return nil }
        return FeedAuthor(name: display, url: uri)
    }
}
