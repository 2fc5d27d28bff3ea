import FeedCore
import FeedaggTesting
import Foundation
import GRDB
import Testing

@testable import FeedStore

@Suite("Schema v5: a store written before it is back-filled")
struct SchemaV5MigrationTests {
    /// Rows as a v4 store holds them: (feed, id, URL, day or nil, placed key for an undated item, staged).
    static let rows: [(feed: String, id: String, url: String?, day: Int?, placed: Double?, staged: Bool)] = [
        ("a", "a1", "https://h.test/1", 5, nil, false),
        ("a", "a2", "https://h.test/shared", 3, nil, false),
        ("a", "a3", nil, nil, 1_700_000_000 + 3 * 86_400 - 1e-4, false),  // undated, placed after a2
        ("a", "a4", nil, nil, nil, false),  // undated, not placed yet
        ("a", "a5", "https://h.test/staged", 9, nil, true),  // staged by an interrupted pull
        ("b", "b1", "https://h.test/shared", 4, nil, false),  // a duplicate of a2
        ("b", "b2", "https://h.test/2", 3, nil, false),  // the same day as a2
        ("b", "a1", "https://h.test/3", 1, nil, false),  // another feed's id
        ("c", "c1", "https://h.test/shared", 2, nil, false),  // a third carrier
        ("c", "c2", "https://h.test/staged", nil, nil, true),
    ]

    static func writeV4Store(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v4")
        try queue.write { db in
            let sources = ["a": "github.repos", "b": "github.members", "c": "github.gists"]
            for (feed, source) in sources {
                try db.execute(sql: "INSERT INTO feed (name, source, pulls) VALUES (?, ?, 1)", arguments: [feed, source])
            }
            var positions: [String: Int] = [:]
            for row in rows {
                let updated = row.day.map { 1_700_000_000 + Double($0) * 86_400 }
                let item = FeedItem(
                    id: row.id, title: "title \(row.id)", url: row.url, updated: updated.map(Date.init(timeIntervalSince1970:)))
                let position = positions[row.feed, default: 0]
                positions[row.feed] = position + 1
                try db.execute(
                    sql: """
                        INSERT INTO item (feed, id, dedup_key, title, url, updated, sort_key, feed_position, first_seen_at,
                            last_seen_at, seen_pull, content_hash, staged)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1700000000, 1700000000, 1, ?, ?)
                        """,
                    arguments: [
                        row.feed, row.id, UnifiedStream.dedupKey(item, source: sources[row.feed] ?? ""), item.title, row.url,
                        updated, updated ?? row.placed, position, item.contentDigest, row.staged ? 1 : 0,
                    ])
            }
        }
        try queue.close()
    }

    @Test("shared marks, visible counts and the order: the maintained stream equals the computed one")
    func backFill() throws {
        let dir = try TemporaryFolder("schema-v5")
        defer { dir.remove() }
        let path = dir.path("old.sqlite")
        try Self.writeV4Store(at: path)
        let store = try FeedStore.open(path: path)
        defer { try? store.close() }
        #expect(try store.schemaVersions() == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"])
        #expect(
            try store.strings(sql: "SELECT feed || '/' || id FROM item WHERE shared = 1 ORDER BY 1")
                == ["a/a2", "a/a5", "b/b1", "c/c1", "c/c2"])
        #expect(try store.strings(sql: "SELECT name || '=' || visible_items FROM feed ORDER BY name") == ["a=4", "b=3", "c=1"])
        for feeds in [["a", "b", "c"], ["c", "b", "a"], ["b", "c"]] {
            let computed = try store.computedStream(feeds: feeds, page: 1, perPage: 100)
            let maintained = try store.stream(feeds: feeds, page: 1, perPage: 100)
            #expect(maintained.entries.map(EntryShape.init) == computed.entries.map(EntryShape.init), "\(feeds)")
            #expect(maintained.totalItems == computed.totalItems)
            for perPage in 1...3 {
                var cursor: StreamCursor?
                repeat {
                    let page = try store.stream(feeds: feeds, after: cursor, limit: perPage)
                    let reference = try store.computedStream(feeds: feeds, after: cursor, limit: perPage)
                    #expect(page.entries.map(EntryShape.init) == reference.entries.map(EntryShape.init), "\(feeds)")
                    #expect(page.nextCursor == reference.nextCursor)
                    cursor = try page.nextCursor.map(StreamCursor.init)
                } while cursor != nil
            }
        }
        // The duplicate is shown once, from the first listed feed, naming every carrier.
        let entries = try store.stream(feeds: ["a", "b", "c"], page: 1, perPage: 100).entries
        #expect(entries.count == 6)
        #expect(entries.first { $0.item.id == "a2" }?.feeds == ["a", "b", "c"])
        #expect(entries.last?.item.id == "a4", "the unplaced undated item is listed last")
    }
}
