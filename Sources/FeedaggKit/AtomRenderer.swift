public import FeedCore
public import Foundation

/// Renders stream entries as an Atom 1.0 feed document (RFC 4287); docs/feed-formats.md shows one.
///
/// Every entry has its stable `tag:` id (``FeedIdentity``), a text `title`, `updated` (see
/// ``SyndicationEntry/updated(of:)``), `published` when distinct, the author (`name`, `uri`),
/// `link rel="alternate"` to the item's page, the image as `link rel="enclosure"`, the summary as
/// `summary type="text"`, one `category term=` per feed carrying it, then one per label the
/// configuration's tag rules give it. An entry without a web
/// page gets a text `content` instead of the alternate link, as RFC 4287 §4.1.1 requires one or
/// the other. The feed's `updated` is the newest entry's, never the time of the request.
///
/// The cursor of the next page, when one follows, is a foreign-namespace element that readers
/// ignore: `<feedagg:next-cursor>TOKEN</feedagg:next-cursor>` with
/// `xmlns:feedagg="tag:feedagg,2026:atom"`. A command line has no URL for the next page; a served
/// document (``FeedLinks``) also has `link rel="self"`, `rel="alternate"` and, when more follows,
/// `rel="next"` (RFC 5005 paging).
///
/// All text goes through ``XMLText/escaped(_:)``: remote text cannot break out of its element,
/// and characters XML 1.0 forbids are dropped.
public enum AtomRenderer {
    /// The Atom namespace.
    public static let namespace = "http://www.w3.org/2005/Atom"
    /// The namespace of feedagg's own elements (prefix `feedagg`).
    public static let extensionNamespace = "tag:feedagg,2026:atom"

    /// A whole document of `entries`, with `nextCursor` when more follows, and `links` when it is
    /// served (`feedagg serve`: `link rel="self"`, `rel="alternate"`, `rel="next"`).
    public static func document(
        _ entries: [StreamEntry], identity: FeedIdentity, nextCursor: String?, links: FeedLinks? = nil
    ) -> String {
        let shown = entries.map(SyndicationEntry.init)
        return head(identity: identity, updated: SyndicationEntry.newest(shown), nextCursor: nextCursor, links: links)
            + shown.map(entry).joined() + tail(updated: nil)
    }

    /// The document up to its first entry. `updated` `nil`: ``tail(updated:)`` writes it instead
    /// (RFC 4287 puts no order on a feed's children; `show --all` knows the date only at the end).
    public static func head(identity: FeedIdentity, updated: Date?, nextCursor: String?, links: FeedLinks? = nil) -> String {
        var out = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="\(namespace)" xmlns:feedagg="\(extensionNamespace)">
              <id>\(XMLText.escaped(identity.id))</id>
              <title type="text">\(XMLText.escaped(identity.title))</title>

            """
        if let updated { out += "  <updated>\(ISO8601.string(from: updated))</updated>\n" }
        if let links {
            out += "  <link rel=\"self\" type=\"application/atom+xml\" href=\"\(XMLText.escaped(links.selfURL))\"/>\n"
            if let alternate = links.alternateURL {
                out += "  <link rel=\"alternate\" type=\"text/html\" href=\"\(XMLText.escaped(alternate))\"/>\n"
            }
            if let next = links.nextURL {
                out += "  <link rel=\"next\" type=\"application/atom+xml\" href=\"\(XMLText.escaped(next))\"/>\n"
            }
        }
        out += "  <author>\n    <name>feedagg</name>\n  </author>\n  <generator>feedagg</generator>\n"
        if let nextCursor { out += "  <feedagg:next-cursor>\(XMLText.escaped(nextCursor))</feedagg:next-cursor>\n" }
        return out
    }

    /// One `<entry>` element.
    public static func entry(_ entry: SyndicationEntry) -> String {
        var out = "  <entry>\n"
        out += "    <id>\(XMLText.escaped(entry.id))</id>\n"
        out += "    <title type=\"text\">\(XMLText.escaped(entry.title))</title>\n"
        out += "    <updated>\(ISO8601.string(from: entry.updated))</updated>\n"
        if let published = entry.published { out += "    <published>\(ISO8601.string(from: published))</published>\n" }
        if let name = entry.authorName {
            out += "    <author>\n      <name>\(XMLText.escaped(name))</name>\n"
            if let uri = entry.authorURL { out += "      <uri>\(XMLText.escaped(uri))</uri>\n" }
            out += "    </author>\n"
        }
        if let url = entry.url {
            out += "    <link rel=\"alternate\" type=\"text/html\" href=\"\(XMLText.escaped(url))\"/>\n"
        }
        if let image = entry.image {
            let type = entry.imageType.map { " type=\"\($0)\"" } ?? ""
            out += "    <link rel=\"enclosure\"\(type) href=\"\(XMLText.escaped(image))\"/>\n"
        }
        if let summary = entry.summary { out += "    <summary type=\"text\">\(XMLText.escaped(summary))</summary>\n" }
        if entry.url == nil {
            out += "    <content type=\"text\">\(XMLText.escaped(entry.summary ?? entry.title))</content>\n"
        }
        for term in entry.feeds + entry.labels { out += "    <category term=\"\(XMLText.escaped(term))\"/>\n" }
        out += "  </entry>\n"
        return out
    }

    /// The end of the document, with the feed's `updated` when ``head(identity:updated:nextCursor:)`` had none.
    public static func tail(updated: Date?) -> String {
        (updated.map { "  <updated>\(ISO8601.string(from: $0))</updated>\n" } ?? "") + "</feed>\n"
    }
}
