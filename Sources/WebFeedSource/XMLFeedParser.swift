import FeedCore
import Foundation

/// Namespace URIs of the vocabularies the XML parser reads.
enum XMLNamespace {
    static let atom = "http://www.w3.org/2005/Atom"
    /// Atom 0.3 (the pre-RFC draft, 2003–2005), still served by old Blogger and Movable Type sites.
    static let atom03 = "http://purl.org/atom/ns#"
    static let rss1 = "http://purl.org/rss/1.0/"
    static let rss090 = "http://my.netscape.com/rdf/simple/0.9/"
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let dc = "http://purl.org/dc/elements/1.1/"
    static let dcterms = "http://purl.org/dc/terms/"
    static let content = "http://purl.org/rss/1.0/modules/content/"
    static let media = "http://search.yahoo.com/mrss/"
    static let itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
    static let xml = "http://www.w3.org/XML/1998/namespace"
    /// Every namespace above.
    static let all = [atom, atom03, rss1, rss090, rdf, dc, dcterms, content, media, itunes, xml]
}

/// Reads RSS 0.9x/2.0, RSS 1.0, Atom 0.3 and Atom 1.0 in one streaming pass over an ``XMLStream``.
struct XMLFeedParser {
    /// Parses `data` (whose bytes stay in place while libxml2 reads them).
    static func parse(_ data: Data, encoding: String?, url: URL, limits: FeedDocument.Limits) throws(FeedParseError)
        -> FeedDocument
    {
        var entries: [FeedEntry] = []
        let header: FeedDocument.Header
        do {
            header = try data.withUnsafeBytes { bytes in
                guard let stream = XMLStream(bytes: bytes, url: url.absoluteString, encoding: encoding) else {
                    throw Self.unsupported(encoding)
                }
                var parser = XMLFeedParser(stream: stream, url: url, limits: limits)
                return try parser.run { entries.append($0) }
            }
        } catch let error as FeedParseError {
            throw error
        } catch {
            throw FeedParseError("\(error)")
        }
        return FeedDocument(format: header.format, title: header.title, entries: entries, nextURL: header.nextURL)
    }

    /// Parses the document `chunks` delivers, handing each entry to `onEntry` as soon as it ends.
    static func stream(
        _ chunks: XMLChunkSource, encoding: String?, url: URL, limits: FeedDocument.Limits,
        onEntry: (FeedEntry) throws(FeedParseError) -> Void
    ) throws(FeedParseError) -> FeedDocument.Header {
        guard let stream = XMLStream(chunks: chunks, url: url.absoluteString, encoding: encoding) else {
            throw chunks.failure ?? Self.unsupported(encoding)
        }
        var parser = XMLFeedParser(stream: stream, url: url, limits: limits)
        return try parser.run(onEntry)
    }

    /// libxml2 made no reader, most likely for the encoding name.
    static func unsupported(_ encoding: String?) -> FeedParseError {
        FeedParseError("libxml2 cannot read the document (unsupported encoding '\(encoding ?? "")'?)")
    }

    let stream: XMLStream
    let url: URL
    let limits: FeedDocument.Limits
    var format: FeedDocument.Format?
    var title: String?
    /// How many entries were read (and handed on).
    var entryCount = 0
    var nextURL: URL?
    /// The feed-level Atom author, inherited by entries without one (RFC 4287 §4.2.1).
    var feedAuthors: [FeedAuthor] = []
    /// The entry being read (each field from its most preferred element so far) and its depth.
    var draft: EntryDraft?
    var entryDepth = 0
    /// `xml:base` values in scope: (depth of the element declaring it, resolved URL).
    var bases: [(depth: Int, url: URL)] = []
    /// The last `xml:base` resolved: (value as written, the base it was resolved against, the
    /// result). Feeds repeat one `xml:base` on every entry; Foundation's URL resolution is then
    /// done once.
    var lastBase: (declared: String, against: URL, resolved: URL?)?

    init(stream: XMLStream, url: URL, limits: FeedDocument.Limits) {
        self.stream = stream
        self.url = url
        self.limits = limits
    }

    /// The pass over the whole document; each entry goes to `onEntry` as soon as it ends.
    mutating func run(_ onEntry: (FeedEntry) throws(FeedParseError) -> Void) throws(FeedParseError)
        -> FeedDocument.Header
    {
        while try stream.read() {
            let type = stream.nodeType
            if type == XMLStream.NodeType.endElement {
                if draft != nil, stream.depth == entryDepth { try finishEntry(onEntry) }
                continue
            }
            guard type == XMLStream.NodeType.element else { continue }
            let depth = stream.depth
            let name = stream.localName
            let namespace = stream.namespace
            let attributes = stream.attributes()
            while let last = bases.last, last.depth >= depth { bases.removeLast() }
            var base = bases.last?.url ?? url
            if let declared = attributes.first(where: { $0.localName == "base" && $0.namespace == XMLNamespace.xml }),
                let resolved = resolveBase(declared.value, against: base)
            {
                base = resolved
                bases.append((depth, resolved))
            }
            guard let format else {
                format = try Self.rootFormat(name: name, namespace: namespace, line: stream.line)
                continue
            }
            if draft != nil {
                try readEntryChild(name, namespace, attributes, depth: depth, base: base)
            } else if Self.isEntry(name, namespace, format) {
                draft = EntryDraft()
                entryDepth = depth
                if format == .rss1, let about = attributes.first(where: { $0.localName == "about" }) {
                    draft?.offer(ItemText.nonEmpty(about.value), to: .id, rank: Rank.rdfAbout)
                }
                if stream.isEmptyElement { try finishEntry(onEntry) }
            } else {
                try readFeedChild(name, namespace, attributes, depth: depth, base: base, format: format)
            }
        }
        guard let format else { throw FeedParseError("the document has no root element") }
        return FeedDocument.Header(format: format, title: title, nextURL: nextURL, entryCount: entryCount)
    }

    /// `declared` (an `xml:base` value) resolved against `base`, remembered for the next entry.
    mutating func resolveBase(_ declared: String, against base: URL) -> URL? {
        if let lastBase, lastBase.declared == declared, lastBase.against == base { return lastBase.resolved }
        let resolved = URL(string: HTMLText.fold(declared), relativeTo: base)?.absoluteURL
        lastBase = (declared, base, resolved)
        return resolved
    }

    /// The format a root element announces.
    static func rootFormat(name: String, namespace: String, line: Int) throws(FeedParseError) -> FeedDocument.Format {
        switch (name, namespace) {
        case ("rss", ""): return .rss2
        case ("RDF", XMLNamespace.rdf): return .rss1
        case ("feed", XMLNamespace.atom): return .atom
        case ("feed", XMLNamespace.atom03): return .atom03
        case ("feed", _):
            throw FeedParseError(
                "an Atom-like <feed> in namespace '\(FeedSniffer.printable(namespace, limit: 80))' (Atom 1.0, "
                    + "\(XMLNamespace.atom), and Atom 0.3, \(XMLNamespace.atom03), are read)", line: line)
        case ("html", _):
            throw FeedParseError("expected an RSS, Atom or JSON Feed document, but an XHTML page arrived", line: line)
        default:
            throw FeedParseError(
                "the root element <\(FeedSniffer.printable(name, limit: 40))> is not RSS (<rss>), RSS 1.0 (<rdf:RDF>) or "
                    + "Atom (<feed>)", line: line)
        }
    }

    /// Whether an element starts an entry in `format`.
    static func isEntry(_ name: String, _ namespace: String, _ format: FeedDocument.Format) -> Bool {
        switch format {
        case .rss2: name == "item" && namespace.isEmpty
        case .rss1: name == "item" && (namespace == XMLNamespace.rss1 || namespace == XMLNamespace.rss090)
        case .atom: name == "entry" && namespace == XMLNamespace.atom
        case .atom03: name == "entry" && namespace == XMLNamespace.atom03
        case .jsonFeed: false
        }
    }

    /// Feed-level elements: the title, the next page's link, the Atom feed author.
    mutating func readFeedChild(
        _ name: String, _ namespace: String, _ attributes: [XMLAttribute], depth: Int, base: URL,
        format: FeedDocument.Format
    ) throws(FeedParseError) {
        let channelDepth = format == .atom || format == .atom03 ? 1 : 2
        guard depth == channelDepth else { return }
        switch (name, namespace) {
        case ("title", XMLNamespace.atom) where format == .atom, ("title", XMLNamespace.atom03) where format == .atom03,
            ("title", "") where format == .rss2,
            ("title", XMLNamespace.rss1) where format == .rss1:
            title = Self.nonEmpty(try stream.foldedText())
        case ("link", XMLNamespace.atom):
            if Self.attribute("rel", attributes)?.lowercased() == "next", let href = Self.attribute("href", attributes),
                let next = Self.resolve(href, base), ["http", "https"].contains(next.scheme?.lowercased() ?? "")
            {
                nextURL = next
            }
        case ("author", XMLNamespace.atom), ("author", XMLNamespace.atom03):
            if let person = try readPerson(base: base) { feedAuthors.append(person) }
        default:
            break
        }
    }

    /// Ends the entry being read: its summary made plain text, the authors falling back to the feed's.
    mutating func finishEntry(_ onEntry: (FeedEntry) throws(FeedParseError) -> Void) throws(FeedParseError) {
        guard let finished = draft?.finish(feedAuthors: feedAuthors) else { return }
        draft = nil
        entryCount += 1
        guard entryCount <= limits.maxEntries else {
            throw FeedParseError("more than \(limits.maxEntries) entries in one document", line: stream.line)
        }
        try onEntry(finished)
    }

    /// Folded text (no whitespace at either end), `nil` when empty: ``ItemText/nonEmpty(_:)``
    /// without its trimming, which folded text does not need.
    static func nonEmpty(_ folded: String) -> String? { folded.isEmpty ? nil : folded }

    /// The value of the attribute named `name` (no namespace).
    static func attribute(_ name: String, _ attributes: [XMLAttribute]) -> String? {
        attributes.first { $0.localName == name && $0.namespace.isEmpty }?.value
    }

    /// `reference` resolved against `base`, or `nil` when it is not a URL.
    static func resolve(_ reference: String, _ base: URL) -> URL? {
        guard let trimmed = HTMLText.trimmed(reference) else { return nil }
        return URL(string: trimmed, relativeTo: base)?.absoluteURL
    }
}
