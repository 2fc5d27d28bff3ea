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

    /// The persisted sort key of a dated item: its sort date in epoch seconds.
    static func datedSortKey(_ item: FeedItem) -> Double? { item.sortDate?.timeIntervalSince1970 }
}

/// A 64-bit FNV-1a digest of an item's stored content (mapped fields and raw JSON), used to tell an
/// unchanged item from a changed one without reading its row back. Fields are length-prefixed and
/// tagged for presence, so `nil` and `""` and field boundaries cannot collide structurally.
struct ContentHash {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325

    static func of(_ item: FeedItem) -> Int64 {
        var hasher = ContentHash()
        hasher.add(item.id)
        hasher.add(item.title)
        hasher.add(item.summary)
        hasher.add(item.url)
        hasher.add(item.author?.name)
        hasher.add(item.author?.url)
        hasher.add(item.author?.avatarURL)
        hasher.add(item.imageURL)
        hasher.add(item.published?.timeIntervalSince1970)
        hasher.add(item.updated?.timeIntervalSince1970)
        hasher.add(item.raw)
        return Int64(bitPattern: hasher.state)
    }

    private mutating func byte(_ value: UInt8) {
        state ^= UInt64(value)
        state &*= 0x0000_0100_0000_01b3
    }

    private mutating func word(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { byte(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private mutating func bytes(_ data: some Collection<UInt8>) {
        byte(1)
        word(UInt64(data.count))
        for value in data { byte(value) }
    }

    mutating func add(_ text: String?) {
        guard let text else { return byte(0) }
        bytes(text.utf8)
    }

    mutating func add(_ data: Data?) {
        guard let data else { return byte(0) }
        bytes(data)
    }

    mutating func add(_ number: Double?) {
        guard let number else { return byte(0) }
        byte(1)
        word(number.bitPattern)
    }
}
