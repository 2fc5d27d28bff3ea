import FeedCore
import Foundation

extension XMLFeedParser {
    /// One element inside an entry: a direct child sets a field; `media:thumbnail` and image
    /// `media:content` count at any depth (inside `media:group` too).
    mutating func readEntryChild(
        _ name: String, _ namespace: String, _ attributes: [XMLAttribute], depth: Int, base: URL
    ) throws(FeedParseError) {
        if namespace == XMLNamespace.media {
            readMedia(name, attributes, base: base)
            return
        }
        guard depth == entryDepth + 1, entry != nil else { return }
        switch namespace {
        case XMLNamespace.atom:
            try readAtom(name, attributes, base: base)
        case "", XMLNamespace.rss1, XMLNamespace.rss090:
            try readRSS(name, attributes, base: base)
        case XMLNamespace.dc:
            switch name {
            case "creator", "contributor":
                if let author = Self.nonEmpty(try stream.foldedText()) {
                    entry?.authors.append(FeedAuthor(name: author))
                }
            case "date":
                let date = FeedDate.parse(try stream.text())
                if entry?.published == nil { entry?.published = date }
            case "subject":
                addCategory(try stream.text())
            default: break
            }
        case XMLNamespace.content where name == "encoded":
            entryContent = try stream.textBytes()
        case XMLNamespace.itunes:
            switch name {
            case "image":
                setImage(Self.attribute("href", attributes), base: base)
            case "author":
                let author = Self.nonEmpty(try stream.foldedText())
                if let author, entry?.authors.isEmpty == true { entry?.authors.append(FeedAuthor(name: author)) }
            case "summary":
                if entryContent == nil { entryContent = try stream.textBytes() }
            default: break
            }
        default:
            break
        }
    }

    /// Atom 1.0 entry children.
    private mutating func readAtom(_ name: String, _ attributes: [XMLAttribute], base: URL) throws(FeedParseError) {
        switch name {
        case "id":
            let guidValue = ItemText.nonEmpty(try stream.text())
            entry?.guid = guidValue
        case "title":
            let titleValue = Self.nonEmpty(try textConstruct(attributes))
            entry?.title = titleValue
        case "link":
            let rel = Self.attribute("rel", attributes)?.lowercased() ?? "alternate"
            guard let href = Self.attribute("href", attributes), let resolved = Self.resolve(href, base) else { return }
            if rel == "alternate", entry?.link == nil {
                entry?.link = resolved.absoluteString
            } else if rel == "enclosure", Self.isImage(Self.attribute("type", attributes)) {
                setImage(resolved.absoluteString, base: base)
            }
        case "published":
            let publishedValue = FeedDate.parse(try stream.text())
            entry?.published = publishedValue
        case "updated":
            let updatedValue = FeedDate.parse(try stream.text())
            entry?.updated = updatedValue
        case "author":
            if let person = try readPerson(base: base) { entry?.authors.append(person) }
        case "category":
            addCategory(Self.attribute("label", attributes) ?? Self.attribute("term", attributes))
        case "summary":
            let summaryValue = Self.nonEmpty(try textConstruct(attributes))
            entry?.summary = summaryValue
        case "content":
            if Self.attribute("src", attributes) == nil {
                let type = Self.attribute("type", attributes)?.lowercased() ?? "text"
                let raw = try stream.textBytes()
                entryContent = type == "html" || type == "xhtml" || type.hasSuffix("html") ? raw : Self.escapeMarkup(raw)
            }
        default:
            break
        }
    }

    /// RSS 2.0 (no namespace) and RSS 1.0 item children.
    private mutating func readRSS(_ name: String, _ attributes: [XMLAttribute], base: URL) throws(FeedParseError) {
        switch name {
        case "title":
            entry?.title = Self.nonEmpty(try stream.textBytes().withUnsafeBufferPointer { HTMLText.plainText(bytes: $0) })
        case "link":
            if let link = Self.resolve(try stream.text(), base) { entry?.link = link.absoluteString }
        case "guid":
            let guidValue = ItemText.nonEmpty(try stream.text())
            entry?.guid = guidValue
        case "description":
            let summaryValue = Self.nonEmpty(try stream.textBytes().withUnsafeBufferPointer { HTMLText.plainText(bytes: $0) })
            entry?.summary = summaryValue
        case "pubDate":
            let publishedValue = FeedDate.parse(try stream.text())
            entry?.published = publishedValue
        case "author":
            if let author = Self.rssAuthor(try stream.text()) { entry?.authors.append(author) }
        case "category":
            addCategory(try stream.text())
        case "enclosure":
            if Self.isImage(Self.attribute("type", attributes)) { setImage(Self.attribute("url", attributes), base: base) }
        default:
            break
        }
    }

    /// `media:thumbnail`, and `media:content` that is an image.
    private mutating func readMedia(_ name: String, _ attributes: [XMLAttribute], base: URL) {
        switch name {
        case "thumbnail":
            setImage(Self.attribute("url", attributes), base: base)
        case "content":
            if Self.attribute("medium", attributes)?.lowercased() == "image" || Self.isImage(Self.attribute("type", attributes)) {
                setImage(Self.attribute("url", attributes), base: base)
            }
        default:
            break
        }
    }

    /// Reads an Atom person construct (`name`, `uri`, `email`), leaving the reader on its end tag.
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
            case "uri": uri = Self.resolve(try stream.text(), base)?.absoluteString
            case "email": email = ItemText.nonEmpty(try stream.text())
            default: break
            }
        }
        guard let display = name ?? email else { return nil }
        return FeedAuthor(name: display, url: uri)
    }

    /// An Atom text construct as plain text: `html` unescaped and stripped, `xhtml` as its text,
    /// `text` folded.
    private func textConstruct(_ attributes: [XMLAttribute]) throws(FeedParseError) -> String {
        let type = Self.attribute("type", attributes)?.lowercased() ?? "text"
        return try stream.textBytes().withUnsafeBufferPointer {
            type == "html" ? HTMLText.plainText(bytes: $0) : HTMLText.fold(bytes: $0)
        }
    }

    /// Sets the entry's image unless it has one.
    private mutating func setImage(_ reference: String?, base: URL) {
        guard entry?.imageURL == nil, let reference, let url = Self.resolve(reference, base) else { return }
        entry?.imageURL = url.absoluteString
    }

    /// Adds a non-empty, not yet listed category.
    private mutating func addCategory(_ text: String?) {
        guard let category = text.flatMap(HTMLText.trimmed), entry?.categories.contains(category) == false else { return }
        entry?.categories.append(category)
    }

    /// Whether a MIME type is an image's.
    static func isImage(_ type: String?) -> Bool { type?.lowercased().hasPrefix("image/") == true }

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

    /// Plain text (UTF-8) made safe to go through the HTML-to-text step unchanged.
    static func escapeMarkup(_ text: [UInt8]) -> [UInt8] {
        guard text.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") }) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 16)
        for byte in text {
            switch byte {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            default: out.append(byte)
            }
        }
        return out
    }
}
