import FeedCore
import FeedaggTesting
import Foundation
import Testing
import WebFeedSource

/// The recorded and hand-written feed documents under `Tests/WebFeedSourceTests/Fixtures/`.
enum FeedFixtures {
    /// The fixture folder.
    static let folder = RepositoryPaths.root.appendingPathComponent("Tests/WebFeedSourceTests/Fixtures")

    /// Every fixture document with the URL it is parsed as coming from (relative links resolve
    /// against it) and its expected format.
    static let documents: [(file: String, url: String, format: FeedDocument.Format)] = [
        // Real recordings (provenance in Fixtures/README.md).
        ("movabletype-touchnokia.atom", "http://touchnokia.ru/atom.xml", .atom),
        ("podcast-transistor-oxide.rss", "https://feeds.transistor.fm/oxide-and-friends", .rss2),
        ("wordpresscom-docuverse.rss", "https://blog.docuverse.com/feed/", .rss2),
        ("typepad-hrefconsideredharmful.rdf", "http://www.avibryant.com/index.rdf", .rss1),
        ("github-releases-feed-rs.atom", "https://github.com/feed-rs/feed-rs/releases.atom", .atom),
        ("jsonfeed-3960.json", "https://journal.3960.org/feed.json", .jsonFeed),
        // Written by hand, for what the recordings above do not cover (see Fixtures/README.md).
        ("github-releases.atom", "https://github.com/swiftlang/swift-format/releases.atom", .atom),
        ("podcast.rss", "https://podcast.example.org/feed.rss", .rss2),
        ("wordpress.rss", "https://workshop.example.net/feed/", .rss2),
        ("jsonfeed-1.1.json", "https://notes.example.com/feed.json", .jsonFeed),
        ("slashdot.rdf", "https://news.example.org/index.rdf", .rss1),
        ("windows-1252.rss", "http://shop.example.de/rss.xml", .rss2),
    ]

    /// The bytes of `file`.
    static func data(_ file: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(file))
    }

    /// `file` parsed as if fetched from `url`.
    static func parse(_ file: String, url: String, contentType: String? = nil) throws -> FeedDocument {
        try FeedDocument.parse(data(file), contentType: contentType, url: URL(string: url)!)
    }

    /// The golden form of a document: format, next link and every entry's fields, as sorted-key JSON.
    static func golden(_ document: FeedDocument) throws -> String {
        let entries: [[String: Any]] = document.entries.map { entry in
            var fields: [String: Any] = ["stable_id": entry.stableID, "display_title": entry.displayTitle]
            if let guid = entry.guid { fields["guid"] = guid }
            if let title = entry.title { fields["title"] = title }
            if let link = entry.link { fields["link"] = link }
            if let published = entry.published { fields["published"] = ISO8601.string(from: published) }
            if let updated = entry.updated { fields["updated"] = ISO8601.string(from: updated) }
            if !entry.authors.isEmpty {
                fields["authors"] = entry.authors.map { author -> [String: Any] in
                    var out: [String: Any] = ["name": author.name]
                    if let url = author.url { out["url"] = url }
                    if let avatar = author.avatarURL { out["avatar"] = avatar }
                    return out
                }
            }
            if !entry.categories.isEmpty { fields["categories"] = entry.categories }
            if let image = entry.imageURL { fields["image"] = image }
            if let summary = entry.summary { fields["summary"] = summary }
            return fields
        }
        var root: [String: Any] = ["format": document.format.rawValue, "entries": entries]
        if let title = document.title { root["title"] = title }
        if let next = document.nextURL { root["next"] = next.absoluteString }
        let data = try JSONSerialization.data(
            withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The error `body` causes, or a recorded issue when it parses.
    static func error(_ body: Data, contentType: String? = nil, limits: FeedDocument.Limits = .init()) -> FeedParseError? {
        do {
            let document = try FeedDocument.parse(
                body, contentType: contentType, url: URL(string: "https://hostile.test/feed")!, limits: limits)
            Issue.record("the document parsed: \(document.entries.count) entries")
            return nil
        } catch {
            return error
        }
    }
}
