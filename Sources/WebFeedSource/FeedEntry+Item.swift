public import FeedCore
import Foundation

extension FeedEntry {
    /// The entry as a stream item of feed `feedName`: id `<feed name>:<stable id>`, the first
    /// author, and as `raw` a JSON object of every field read (so all authors and the categories,
    /// which ``FeedItem`` has no field for, are kept).
    public func item(feedName: String) -> FeedItem {
        FeedItem(
            id: feedName + ":" + stableID, title: displayTitle, summary: ItemText.nonEmpty(summary),
            url: ItemText.nonEmpty(link), author: authors.first, imageURL: imageURL, published: published,
            updated: updated, raw: rawJSON.serialized)
    }

    /// The fields read, as a JSON object (absent fields left out).
    var rawJSON: JSONValue {
        var members: [JSONValue.Member] = []
        func add(_ key: String, _ text: String?) {
            if let text { members.append(.init(key, .string(text))) }
        }
        add("id", guid)
        add("title", title)
        add("link", link)
        add("published", published.map(ISO8601.string(from:)))
        add("updated", updated.map(ISO8601.string(from:)))
        if !authors.isEmpty {
            members.append(
                .init(
                    "authors",
                    .array(
                        authors.map { author in
                            var fields: [JSONValue.Member] = [.init("name", .string(author.name))]
                            if let url = author.url { fields.append(.init("url", .string(url))) }
                            if let avatar = author.avatarURL { fields.append(.init("avatar", .string(avatar))) }
                            return .object(fields)
                        })))
        }
        if !categories.isEmpty { members.append(.init("categories", .array(categories.map { .string($0) }))) }
        add("image", imageURL)
        add("summary", summary)
        return .object(members)
    }
}
