public import FeedCore
public import Foundation

/// A parsed RSS, Atom or JSON Feed document: its format, its entries and the next page's URL.
///
/// ``parse(_:contentType:url:limits:)`` detects the format from the body (never from the file
/// name or the Content-Type), so a feed served as `text/plain` or `application/octet-stream`
/// still reads, and an HTML page served instead of a feed is a ``FeedParseError`` naming it.
public struct FeedDocument: Sendable {
    /// The formats feedagg reads.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// RSS 2.0 (and the 0.9x dialects that share its `<rss><channel><item>` shape).
        case rss2 = "RSS 2.0"
        /// RSS 1.0: RDF with `<item rdf:about>` elements beside the channel.
        case rss1 = "RSS 1.0 (RDF)"
        /// Atom 1.0 (RFC 4287).
        case atom = "Atom 1.0"
        /// Atom 0.3 (`http://purl.org/atom/ns#`), the draft Atom 1.0 replaced.
        case atom03 = "Atom 0.3"
        /// JSON Feed 1.0 or 1.1.
        case jsonFeed = "JSON Feed"
    }

    /// The detected format.
    public var format: Format
    /// The feed's own title, when it has one.
    public var title: String?
    /// The entries, in document order.
    public var entries: [FeedEntry]
    /// The next page (Atom `<link rel="next">`, RFC 5005; JSON Feed `next_url`), resolved against
    /// the document's URL; `nil` on the last page.
    public var nextURL: URL?

    /// Creates a document.
    public init(format: Format, title: String? = nil, entries: [FeedEntry], nextURL: URL? = nil) {
        self.format = format
        self.title = title
        self.entries = entries
        self.nextURL = nextURL
    }

    /// Limits that keep a hostile document from using unbounded memory or time.
    public struct Limits: Sendable, Hashable {
        /// Largest document accepted, in bytes. Default 16 MiB.
        public var maxBytes: Int
        /// Most entries read from one document. Default 100,000.
        public var maxEntries: Int

        /// Creates limits; the defaults suit any real feed.
        public init(maxBytes: Int = 16 << 20, maxEntries: Int = 100_000) {
            self.maxBytes = maxBytes
            self.maxEntries = maxEntries
        }
    }

    /// Parses `data` fetched from `url`; `contentType` is the response's `Content-Type` (its
    /// `charset` is used when the body has no byte-order mark).
    ///
    /// Throws ``FeedParseError`` for a body over ``Limits/maxBytes``, an HTML page, malformed XML
    /// or JSON (with its line), or a document that is none of the four formats.
    public static func parse(
        _ data: Data, contentType: String? = nil, url: URL, limits: Limits = Limits()
    ) throws(FeedParseError) -> FeedDocument {
        guard data.count <= limits.maxBytes else {
            throw FeedParseError(
                "the document is \(data.count) bytes, over the limit of \(limits.maxBytes) bytes (the feed's 'max_bytes')")
        }
        let sniffed = FeedSniffer.sniff(data, contentType: contentType)
        switch sniffed.kind {
        case .empty:
            throw FeedParseError("the response body is empty, not a feed")
        case .html(let title):
            let titled = title.map { ", titled '\($0)'" } ?? ""
            let type = contentType.map { " (Content-Type \(FeedSniffer.printable($0, limit: 80)))" } ?? ""
            throw FeedParseError(
                "expected an RSS, Atom or JSON Feed document, but an HTML page arrived\(type)\(titled)")
        case .json:
            return try JSONFeedParser.parse(sniffed.utf8JSON(data), url: url, limits: limits)
        case .xml:
            return try XMLFeedParser.parse(data, encoding: sniffed.declaredCharset, url: url, limits: limits)
        case .other(let start):
            throw FeedParseError(
                "expected an RSS, Atom or JSON Feed document, but the body starts with '\(start)'")
        }
    }
}

/// Why a document could not be read as a feed: a message and, for XML, the line.
public struct FeedParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// The 1-based line in the document, when known.
    public var line: Int?

    /// Creates an error.
    public init(_ message: String, line: Int? = nil) {
        self.message = message
        self.line = line
    }

    /// The message, with the line when known.
    public var description: String { line.map { "line \($0): \(message)" } ?? message }

    /// The error as the engine reports decode failures: the line is the path.
    public var pageDecodeError: PageDecodeError {
        PageDecodeError(path: line.map { "line \($0)" } ?? "the document", message)
    }
}
