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
    /// by position. Not `raw`: no page shows an item's original JSON (``StoredStreamPage``).
    static let shown =
        "id, title, summary, url, author_name, author_url, author_avatar, image_url, published, updated"

    /// The item whose ``shown`` columns start at index `start` of the current row of a stepped
    /// statement (``StatementColumns``), without its original JSON: the stream page's read, without
    /// a copy of the row or a generic decode per column.
    static func item(from columns: StatementColumns, at start: Int32) throws -> FeedItem {
        guard let id = columns.text(start), let title = columns.text(start + 1) else {
            throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "an item row without its id or title")
        }
        let author = columns.text(start + 4).map {
            FeedAuthor(name: $0, url: columns.text(start + 5), avatarURL: columns.text(start + 6))
        }
        return FeedItem(
            id: id, title: title, summary: columns.text(start + 2), url: columns.text(start + 3), author: author,
            imageURL: columns.text(start + 7), published: columns.double(start + 8).map(Date.init(timeIntervalSince1970:)),
            updated: columns.double(start + 9).map(Date.init(timeIntervalSince1970:)), raw: nil)
    }

    /// The persisted sort key of a dated item: its sort date in epoch seconds.
    static func datedSortKey(_ item: FeedItem) -> Double? { item.sortDate?.timeIntervalSince1970 }
}
