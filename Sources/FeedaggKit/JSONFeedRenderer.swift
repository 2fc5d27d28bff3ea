public import FeedCore
import Foundation

/// Renders stream entries as a JSON Feed 1.1 document (https://jsonfeed.org/version/1.1);
/// docs/feed-formats.md shows one.
///
/// Items carry the same stable `tag:` `id` as Atom entries (``FeedIdentity``), `url` (the item's
/// page), `title`, `summary` and `content_text` (the summary, else the title: JSON Feed requires
/// content), `image`, `date_published` when distinct from `date_modified`, `date_modified` (see
/// ``SyndicationEntry/updated(of:)``), `authors` (`name`, `url`, `avatar`) and `tags` (every feed
/// carrying the item, then the labels of the configuration's tag rules). JSON Feed has no feed-level date.
///
/// The next page's cursor is in feedagg's extension object (JSON Feed reserves keys starting with
/// `_` for extensions, which readers ignore): `"_feedagg": {"feed_id": "tag:…", "next_cursor": "TOKEN"}`
/// (`next_cursor` is `null` on the last page; `feed_id` is the Atom feed's id). A command line has no URL for the next page; a served
/// document (``FeedLinks``) has `feed_url`, `home_page_url` and, when more follows, `next_url`.
///
/// Text is written as JSON strings, so remote text stays exactly as received: control characters
/// are kept, `\u`-escaped as JSON requires, rather than dropped as in Atom (JSON can carry them).
public enum JSONFeedRenderer {
    /// The `version` of every document.
    public static let version = "https://jsonfeed.org/version/1.1"

    /// A whole document of `entries`, with `nextCursor` when more follows.
    /// `links` when it is served (`feedagg serve`: `feed_url`, `home_page_url`, `next_url`).
    public static func document(
        _ entries: [StreamEntry], identity: FeedIdentity, nextCursor: String?, links: FeedLinks? = nil
    ) -> String {
        let items = entries.map { item(SyndicationEntry($0)) }
        return JSON.object(
            topLevel(identity, links: links) + [
                ("items", .array(items)), extensionObject(identity: identity, nextCursor: nextCursor),
            ]
        ).serialized() + "\n"
    }

    /// The top-level members before `items`: version, title, the served URLs, authors.
    static func topLevel(_ identity: FeedIdentity, links: FeedLinks? = nil) -> [(String, JSON)] {
        var members: [(String, JSON)] = [("version", .string(version)), ("title", .string(identity.title))]
        if let links {
            if let alternate = links.alternateURL { members.append(("home_page_url", .string(alternate))) }
            members.append(("feed_url", .string(links.selfURL)))
            if let next = links.nextURL { members.append(("next_url", .string(next))) }
        }
        members.append(("authors", .array([.object([("name", .string("feedagg"))])])))
        return members
    }

    /// `"_feedagg": {"feed_id": …, "next_cursor": …}`: the document's stable id (the Atom feed's
    /// `id`, which JSON Feed has no member for) and the next page's cursor.
    static func extensionObject(identity: FeedIdentity, nextCursor: String?) -> (String, JSON) {
        ("_feedagg", .object([("feed_id", .string(identity.id)), ("next_cursor", .optionalString(nextCursor))]))
    }

    /// The start of a document streamed item by item (`show --all`): everything up to `"items":[`.
    public static func head(identity: FeedIdentity) -> String {
        let members = JSON.object(topLevel(identity)).serialized()
        return String(members.dropLast()) + #","items":["#
    }

    /// The end of a streamed document: closes `items` and adds the extension object.
    public static func tail(identity: FeedIdentity, nextCursor: String?) -> String {
        let (key, value) = extensionObject(identity: identity, nextCursor: nextCursor)
        return "]," + JSON.string(key).serialized() + ":" + value.serialized() + "}\n"
    }

    /// One item object.
    public static func item(_ entry: SyndicationEntry) -> JSON {
        var fields: [(String, JSON)] = [("id", .string(entry.id))]
        if let url = entry.url { fields.append(("url", .string(url))) }
        fields.append(("title", .string(entry.title)))
        if let summary = entry.summary { fields.append(("summary", .string(summary))) }
        fields.append(("content_text", .string(entry.summary ?? entry.title)))
        if let image = entry.image { fields.append(("image", .string(image))) }
        if let published = entry.published { fields.append(("date_published", .string(ISO8601.string(from: published)))) }
        fields.append(("date_modified", .string(ISO8601.string(from: entry.updated))))
        if let name = entry.authorName {
            var author: [(String, JSON)] = [("name", .string(name))]
            if let url = entry.authorURL { author.append(("url", .string(url))) }
            if let avatar = entry.authorAvatar { author.append(("avatar", .string(avatar))) }
            fields.append(("authors", .array([.object(author)])))
        }
        fields.append(("tags", .array((entry.feeds + entry.labels).map(JSON.string))))
        return .object(fields)
    }
}
