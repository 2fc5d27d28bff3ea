import FeedCore
import Foundation
import GRDB

/// How a ``FeedItem`` maps to the `item` table's columns, both ways.
enum ItemColumns {
    /// The content columns, in the order ``values(_:)`` returns them.
    static let names = [
        "title", "summary", "url", "author_name", "author_url", "author_avatar", "image_url", "published", "updated",
        "raw",
    ]

    /// The content column values of `item`; dates as epoch seconds.
    static func values(_ item: FeedItem) -> [(any DatabaseValueConvertible)?] {
        [
            item.title, item.summary, item.url, item.author?.name, item.author?.url, item.author?.avatarURL,
            item.imageURL, item.published?.timeIntervalSince1970, item.updated?.timeIntervalSince1970, item.raw,
        ]
    }

    /// The item stored in `row` (which selects `id` and the content columns).
    static func item(from row: Row) throws -> FeedItem {
        let author: FeedAuthor? =
            if let name = try row.decode(String?.self, forColumn: "author_name") {
                FeedAuthor(
                    name: name, url: try row.decode(String?.self, forColumn: "author_url"),
                    avatarURL: try row.decode(String?.self, forColumn: "author_avatar"))
            } else {
                nil
            }
        return FeedItem(
            id: try row.decode(String.self, forColumn: "id"),
            title: try row.decode(String.self, forColumn: "title"),
            summary: try row.decode(String?.self, forColumn: "summary"),
            url: try row.decode(String?.self, forColumn: "url"),
            author: author,
            imageURL: try row.decode(String?.self, forColumn: "image_url"),
            published: try row.decode(Double?.self, forColumn: "published").map(Date.init(timeIntervalSince1970:)),
            updated: try row.decode(Double?.self, forColumn: "updated").map(Date.init(timeIntervalSince1970:)),
            raw: try row.decode(Data?.self, forColumn: "raw"))
    }

    /// The columns ``item(from:at:)`` reads, in its order: a statement selects them to decode items
    /// by position (by name, GRDB folds each column name's case on every access).
    static let selected = "id, " + names.joined(separator: ", ")

    /// The item whose ``selected`` columns start at index `start` of `row`.
    static func item(from row: Row, at start: Int) throws -> FeedItem {
        let author: FeedAuthor? =
            if let name = try row.decode(String?.self, atIndex: start + 4) {
                FeedAuthor(
                    name: name, url: try row.decode(String?.self, atIndex: start + 5),
                    avatarURL: try row.decode(String?.self, atIndex: start + 6))
            } else {
                nil
            }
        return FeedItem(
            id: try row.decode(String.self, atIndex: start),
            title: try row.decode(String.self, atIndex: start + 1),
            summary: try row.decode(String?.self, atIndex: start + 2),
            url: try row.decode(String?.self, atIndex: start + 3),
            author: author,
            imageURL: try row.decode(String?.self, atIndex: start + 7),
            published: try row.decode(Double?.self, atIndex: start + 8).map(Date.init(timeIntervalSince1970:)),
            updated: try row.decode(Double?.self, atIndex: start + 9).map(Date.init(timeIntervalSince1970:)),
            raw: try row.decode(Data?.self, atIndex: start + 10))
    }

    /// The persisted sort key of a dated item: its sort date in epoch seconds.
    static func datedSortKey(_ item: FeedItem) -> Double? { item.sortDate?.timeIntervalSince1970 }
}
