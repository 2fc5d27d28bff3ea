import FeedCore
import Foundation
import Testing
import WebFeedSource

/// One row of the element mapping table in docs/sources-feed.md: a small document written for
/// it and the entries it must parse to, every field exactly.
struct MappingRow: Sendable, CustomTestStringConvertible {
    /// Whether Python's feedparser reads the same id, title, link and date from the document.
    enum Feedparser: Sendable {
        /// It does (`MappingGoldenTests.feedparserAgrees` checks it).
        case agrees
        /// It does not, or does not read the format; the reason, as in the table.
        case differs(String)
    }

    /// The row's name, exactly as in the table.
    var name: String
    var format: FeedDocument.Format
    var document: String
    var expected: [FeedEntry]
    var feedparser: Feedparser = .agrees

    var testDescription: String { name }

    /// The URL every row's document is read as coming from.
    static let url = URL(string: "https://feeds.example.org/blog/feed.xml")!

    /// An RSS 2.0 document around `items` (the `dc`, `dcterms`, `content`, `media`, `itunes` and
    /// `atom` prefixes declared).
    static func rss(_ items: String, version: String = "2.0", channel: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="\(version)" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" \
        xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:media="http://search.yahoo.com/mrss/" \
        xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:atom="http://www.w3.org/2005/Atom">
        <channel><title>Feed</title><link>https://feeds.example.org/blog/</link><description>d</description>\(channel)
        \(items)
        </channel></rss>
        """
    }

    /// An RSS 1.0 (RDF) document around `items`.
    static func rdf(_ items: String, namespace: String = "http://purl.org/rss/1.0/") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="\(namespace)" \
        xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" \
        xmlns:content="http://purl.org/rss/1.0/modules/content/">
        <channel rdf:about="https://feeds.example.org/blog/"><title>Feed</title><link>https://feeds.example.org/blog/</link>\
        <description>d</description></channel>
        \(items)
        </rdf:RDF>
        """
    }

    /// An Atom 1.0 document around `entries`.
    static func atom(_ entries: String, feed: String = "", attributes: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/" \
        xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"\(attributes)>
        <title>Feed</title><id>urn:feed</id><updated>2003-12-13T18:30:02Z</updated>\(feed)
        \(entries)
        </feed>
        """
    }

    /// An Atom 0.3 document around `entries`.
    static func atom03(_ entries: String, feed: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <feed version="0.3" xmlns="http://purl.org/atom/ns#" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <title>Feed</title><modified>2003-12-13T18:30:02Z</modified>\(feed)
        \(entries)
        </feed>
        """
    }

    /// A JSON Feed 1.1 (or `version`) document around `items` (a JSON array's members).
    static func json(_ items: String, version: String = "1.1", feed: String = "") -> String {
        #"{"version": "https://jsonfeed.org/version/\#(version)", "title": "Feed"\#(feed), "items": [\#(items)]}"#
    }
}

/// `text` (RFC 3339) as a date, read by FeedCore's parser, not the one under test.
func date(_ text: String) -> Date {
    guard let date = ISO8601.date(from: text) else { fatalError("not RFC 3339: \(text)") }
    return date
}

/// An author named `name`.
func author(_ name: String, url: String? = nil, avatar: String? = nil) -> FeedAuthor {
    FeedAuthor(name: name, url: url, avatarURL: avatar)
}
