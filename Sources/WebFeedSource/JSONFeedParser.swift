import FeedCore
import Foundation

/// Reads JSON Feed 1.0 and 1.1 (https://jsonfeed.org/version/1.1) through FeedCore's JSON parser.
enum JSONFeedParser {
    /// Parses a UTF-8 JSON Feed fetched from `url`.
    static func parse(_ data: Data, url: URL, limits: FeedDocument.Limits) throws(FeedParseError) -> FeedDocument {
        let root: JSONValue
        do {
            root = try JSONValue.parse(data)
        } catch {
            throw FeedParseError("malformed JSON: \(error.description)")
        }
        guard case .object = root, let version = root["version"]?.scalarText,
            version.hasPrefix("https://jsonfeed.org/version/") || version.hasPrefix("http://jsonfeed.org/version/")
        else {
            throw FeedParseError(
                "a JSON document arrived, but not a JSON Feed (no \"version\": \"https://jsonfeed.org/version/1.1\")")
        }
        guard case .array(let items)? = root["items"] else {
            throw FeedParseError("the JSON Feed has no \"items\" array at $.items")
        }
        guard items.count <= limits.maxEntries else {
            throw FeedParseError("more than \(limits.maxEntries) entries in one document")
        }
        let feedAuthors = authors(root)
        var entries: [FeedEntry] = []
        for (index, item) in items.enumerated() {
            guard case .object = item else {
                throw FeedParseError("expected an object at $.items[\(index)], found \(item.kindDescription)")
            }
            entries.append(entry(item, base: url, feedAuthors: feedAuthors))
        }
        let next = root["next_url"]?.scalarText.flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
        return FeedDocument(
            format: .jsonFeed, title: ItemText.oneLine(root["title"]?.scalarText), entries: entries,
            nextURL: next.flatMap { ["http", "https"].contains($0.scheme?.lowercased() ?? "") ? $0 : nil })
    }

    /// One item: `id`, `url` (else `external_url`), `title`, `summary` (else `content_text`; both
    /// plain text by the spec, so only folded: a `<i>` there is text), else `content_html` stripped,
    /// `image` (else `banner_image`, else the first image attachment), `date_published`,
    /// `date_modified`, `authors` (1.1) or `author` (1.0), `tags`.
    static func entry(_ item: JSONValue, base: URL, feedAuthors: [FeedAuthor]) -> FeedEntry {
        func text(_ key: String) -> String? { ItemText.nonEmpty(item[key]?.scalarText) }
        /// `key`'s text folded, `nil` when nothing is left: what trimming it first gives (folding
        /// trims the same White_Space characters), without Foundation's trimming, which bridges a
        /// text ending in, say, `…` through UTF-16.
        func folded(_ key: String) -> String? {
            item[key]?.scalarText.map(HTMLText.fold).flatMap { $0.isEmpty ? nil : $0 }
        }
        func link(_ key: String) -> String? {
            text(key).flatMap { URL(string: $0, relativeTo: base)?.absoluteURL.absoluteString }
        }
        var entry = FeedEntry()
        entry.guid = text("id")
        entry.link = link("url") ?? link("external_url")
        entry.title = folded("title")
        entry.summary = folded("summary") ?? folded("content_text") ?? text("content_html").map(HTMLText.plainText)
        // Each of the three is folded text already: only an empty one is left to drop.
        entry.summary = entry.summary.flatMap { $0.isEmpty ? nil : $0 }
        entry.published = text("date_published").flatMap(FeedDate.parse)
        entry.updated = text("date_modified").flatMap(FeedDate.parse)
        let own = authors(item)
        entry.authors = own.isEmpty ? feedAuthors : own
        if case .array(let tags)? = item["tags"] {
            for tag in tags {
                if let name = ItemText.oneLine(tag.scalarText), !entry.categories.contains(name) { entry.categories.append(name) }
            }
        }
        entry.imageURL = link("image") ?? link("banner_image")
        if entry.imageURL == nil, case .array(let attachments)? = item["attachments"] {
            for attachment in attachments where attachment["mime_type"]?.scalarText?.lowercased().hasPrefix("image/") == true {
                if let url = attachment["url"]?.scalarText.flatMap({ URL(string: $0, relativeTo: base)?.absoluteURL }) {
                    entry.imageURL = url.absoluteString
                    break
                }
            }
        }
        return entry
    }

    /// `authors` (1.1) or, without a non-empty one, `author` (1.0) of a feed or an item.
    static func authors(_ object: JSONValue) -> [FeedAuthor] {
        var values: [JSONValue] = []
        if case .array(let list)? = object["authors"], !list.isEmpty {
            values = list
        } else if let one = object["author"] {
            values = [one]
        }
        return values.compactMap { value in
            let url = ItemText.nonEmpty(value["url"]?.scalarText)
            guard let name = ItemText.oneLine(value["name"]?.scalarText) ?? url else { return nil }
            return FeedAuthor(name: name, url: url, avatarURL: ItemText.nonEmpty(value["avatar"]?.scalarText))
        }
    }
}
