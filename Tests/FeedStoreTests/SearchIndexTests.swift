import FeedCore
import FeedSearch
import FeedStorage
import FeedaggTesting
import Foundation
import GRDB
import Testing

@testable import FeedStore

/// SQLite's full-text indexes (schema v7, and v8's of the shared rows): built for the stored items
/// by the migrations, kept in step with every write (new items, changed ones, items marked
/// shared, deleted feeds), and keyed so that `VACUUM` cannot mix them up.
@Suite("SQLite search index")
struct SearchIndexTests {
    static func ids(_ store: FeedStore, _ query: String, feeds: [String]) throws -> [String] {
        let page = try store.stream(
            feeds: feeds, sources: nil, selection: StreamSelection(query: try SearchQuery(parsing: query)), after: nil,
            limit: 100)
        return page.entries.map { "\($0.feed)/\($0.item.id)" }
    }

    /// The tokens whose matches in the shared rows' own index (`item_search_shared`, schema v8)
    /// are not the shared rows whose text has them; empty when the index is in step. A row indexed
    /// with other text than it was removed with, or left out, or left behind, is found.
    static func sharedIndexMismatches(_ path: String) throws -> [String] {
        struct Stored {
            var doc: Int64
            var shared: Bool
            var tokens: Set<String>
        }
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            var rows: [Stored] = []
            for row in try Row.fetchAll(db, sql: "SELECT doc, shared, title, summary, author_name FROM item") {
                let fields: [String?] = [row["title"], row["summary"], row["author_name"]]
                rows.append(Stored(doc: row["doc"], shared: row["shared"], tokens: Set(fields.compactMap { $0 }.flatMap(SearchText.tokens))))
            }
            guard rows.contains(where: { $0.shared }) else { return ["no shared rows"] }
            var mismatches: [String] = []
            for token in Set(rows.flatMap { $0.tokens }).sorted() {
                let indexed = Set(
                    try Int64.fetchAll(
                        db, sql: "SELECT rowid FROM item_search_shared WHERE item_search_shared MATCH ?",
                        arguments: ["\"\(token)\""]))
                let expected = Set(rows.filter { $0.shared && $0.tokens.contains(token) }.map { $0.doc })
                if indexed != expected { mismatches.append("\(token): \(indexed.sorted()) != \(expected.sorted())") }
            }
            return mismatches
        }
    }

    /// A complete pull of `items` into `feed` (a `github.repos` feed) of `store`.
    static func commit(_ store: FeedStore, _ feed: String, _ items: [FeedItem]) throws {
        try store.commitPull(
            feed: feed, source: "github.repos", items: items, complete: true, stats: PullStats(pages: 1, requests: 1),
            error: nil, cacheEntries: [])
    }

    @Test(
        "the migration indexes the items a store held before it; staged and shared rows are counted right, from read and from kept sets",
        arguments: [false, true])
    func migrationBackFills(keepsEveryTerm: Bool) throws {
        let dir = try TemporaryFolder("search-v7")
        defer { dir.remove() }
        let path = dir.path("old.sqlite")
        try SchemaV5MigrationTests.writeV4Store(at: path)
        let store = try FeedStore.open(path: path)
        defer { try? store.close() }
        if keepsEveryTerm { store.searchDocuments.keptTermMinimum.store(0, ordering: .relaxed) }
        #expect(try Self.ids(store, "a1", feeds: ["a", "b", "c"]) == ["a/a1", "b/a1"])
        // b1 shares its URL with a2 and c1: the stream shows a's copy, "title a2", which the
        // query is matched against.
        #expect(try Self.ids(store, "title:b*", feeds: ["a", "b", "c"]) == ["b/b2"])
        #expect(try Self.ids(store, "title:b*", feeds: ["b", "a", "c"]) == ["b/b1", "b/b2"])
        // a5 and c2 are staged: indexed, never shown, never counted.
        #expect(try Self.ids(store, "a5 OR c2", feeds: ["a", "b", "c"]) == [])
        let staged = try store.stream(
            feeds: ["a", "b", "c"], sources: nil, selection: StreamSelection(query: try SearchQuery(parsing: "a5 OR c2")),
            after: nil, limit: 10)
        #expect(staged.totalItems == 0)
        // a2, b1 and c1 share a URL: one entry, counted once.
        let shared = try store.stream(
            feeds: ["a", "b", "c"], sources: nil, selection: StreamSelection(query: try SearchQuery(parsing: "a2 OR b1 OR c1")),
            after: nil, limit: 10)
        #expect(shared.entries.count == 1 && shared.totalItems == 1)
        try store.close()
        #expect(try Self.sharedIndexMismatches(path) == [])
    }

    @Test("new, changed and deleted items are found as they are now, also after VACUUM")
    func keptInStep() throws {
        let dir = try TemporaryFolder("search-step")
        defer { dir.remove() }
        let path = dir.path("store.sqlite")
        let store = try FeedStore.open(path: path)
        defer { try? store.close() }
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        func commit(_ feed: String, _ items: [FeedItem]) throws { try Self.commit(store, feed, items) }
        try commit("a", [
            FeedItem(id: "1", title: "Crème brûlée recipes", summary: "server-side", updated: day),
            FeedItem(id: "2", title: "Rust notes", author: FeedAuthor(name: "Zoë"), updated: day),
        ])
        // b/1 carries a/1's dedup key (the same id): both are marked shared, a/1 by an update.
        try commit("b", [FeedItem(id: "3", title: "creme", updated: day), FeedItem(id: "1", title: "Copy of the first", updated: day)])
        #expect(try Self.sharedIndexMismatches(path) == [])
        #expect(try Self.ids(store, "creme", feeds: ["a", "b"]) == ["a/1", "b/3"])
        #expect(try Self.ids(store, "\"server side\"", feeds: ["a", "b"]) == ["a/1"])
        #expect(try Self.ids(store, "author:zoe", feeds: ["a", "b"]) == ["a/2"])
        // A changed title replaces the old tokens.
        try commit("a", [
            FeedItem(id: "1", title: "Soufflé", summary: "server-side", updated: day),
            FeedItem(id: "2", title: "Rust notes", author: FeedAuthor(name: "Zoë"), updated: day),
        ])
        #expect(try Self.ids(store, "creme", feeds: ["a", "b"]) == ["b/3"])
        #expect(try Self.ids(store, "souffle", feeds: ["a", "b"]) == ["a/1"])
        #expect(try Self.sharedIndexMismatches(path) == [])
        // Deleting a feed removes its items from the index.
        try store.delete(feeds: ["a"])
        #expect(try Self.ids(store, "souffle OR rust OR creme", feeds: ["a", "b"]) == ["b/3"])
        // VACUUM may renumber rowids (this SQLite keeps them, others need not): the index is keyed
        // by `doc`, which it keeps, and a later insert takes a new one.
        try store.close()
        let queue = try DatabaseQueue(path: path)
        try queue.vacuum()
        try queue.close()
        let reopened = try FeedStore.open(path: path)
        defer { try? reopened.close() }
        try reopened.commitPull(
            feed: "c", source: "github.repos", items: [FeedItem(id: "4", title: "Brûlée again", updated: day)],
            complete: true, stats: PullStats(pages: 1, requests: 1), error: nil, cacheEntries: [])
        #expect(try Self.ids(reopened, "creme", feeds: ["a", "b", "c"]) == ["b/3"])
        #expect(try Self.ids(reopened, "brulee", feeds: ["a", "b", "c"]) == ["c/4"])
        #expect(try Self.sharedIndexMismatches(path) == [])
    }

    @Test("a count made from kept sets follows every change, also another handle's commits")
    func keptSetsFollowChanges() throws {
        let dir = try TemporaryFolder("search-kept-sets")
        defer { dir.remove() }
        let path = dir.path("store.sqlite")
        let store = try FeedStore.open(path: path)
        defer { try? store.close() }
        // Every term's rows and the entry sets are kept, whatever their size.
        store.searchDocuments.keptTermMinimum.store(0, ordering: .relaxed)
        let writer = try FeedStore.open(path: path)
        defer { try? writer.close() }
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        let commit = Self.commit
        func total(_ query: String) throws -> Int {
            try store.stream(
                feeds: ["a", "b"], sources: nil, selection: StreamSelection(query: try SearchQuery(parsing: query)),
                after: nil, limit: 10
            ).totalItems
        }
        try commit(store, "a", [FeedItem(id: "1", title: "swift notes", updated: day), FeedItem(id: "2", title: "rust", updated: day)])
        try commit(store, "b", [FeedItem(id: "3", title: "go", updated: day)])
        #expect(try total("swift OR rust") == 2)
        // Another handle adds a match and a copy of a/1 (the same id: one entry of two rows).
        try commit(writer, "b", [
            FeedItem(id: "3", title: "go", updated: day), FeedItem(id: "4", title: "swift again", updated: day),
            FeedItem(id: "1", title: "a copy", updated: day),
        ])
        #expect(try total("swift OR rust") == 3)
        #expect(try total("swift") == 2)
        // A changed title leaves the sets kept for the old one.
        try commit(writer, "a", [FeedItem(id: "1", title: "swift notes", updated: day), FeedItem(id: "2", title: "go", updated: day)])
        #expect(try total("swift OR rust") == 2)
        #expect(try total("go") == 2)
        try writer.delete(feeds: ["b"])
        #expect(try total("swift OR rust OR go") == 2)
        #expect(try total("swift") == 1)
    }

    @Test("kept sets leave staged rows out: a pull in progress moves no change number, and is never counted")
    func keptSetsLeaveStagedRowsOut() throws {
        let dir = try TemporaryFolder("search-kept-staged")
        defer { dir.remove() }
        let path = dir.path("store.sqlite")
        let store = try FeedStore.open(path: path)
        defer { try? store.close() }
        store.searchDocuments.keptTermMinimum.store(0, ordering: .relaxed)
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        try Self.commit(store, "a", [FeedItem(id: "1", title: "swift notes", updated: day), FeedItem(id: "2", title: "go", updated: day)])
        func total(_ query: String) throws -> Int {
            try store.stream(
                feeds: ["a"], sources: nil, selection: StreamSelection(query: try SearchQuery(parsing: query)), after: nil,
                limit: 10
            ).totalItems
        }
        // The entry sets are kept with no pull in progress.
        #expect(try total("go") == 1)
        // Another handle stages a page: a new `swift` row, not shown until the pull commits.
        let writer = try FeedStore.open(path: path)
        defer { try? writer.close() }
        guard case .fresh(let ticket) = try writer.beginPull(feed: "a", source: "github.repos", fingerprint: "f", restart: true)
        else {
            Issue.record("no claim")
            return
        }
        _ = try writer.stagePage(AcceptedPage(number: 1, items: [FeedItem(id: "3", title: "swift staged", updated: day)]), ticket: ticket)
        // `swift`'s rows are read now, with the staged row in the snapshot: still one entry.
        #expect(try total("swift") == 1)
        #expect(try total("swift OR go") == 2)
    }

    @Test("a search walking the stream index that runs out of budget reads the candidates, with the same pages")
    func walkBudget() throws {
        let dir = try TemporaryFolder("search-walk-budget")
        defer { dir.remove() }
        let store = try FeedStore.open(path: dir.path("store.sqlite"))
        defer { try? store.close() }
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        // 40 items, newest first by id; `swift` in the three newest and the ten oldest: a walk
        // hands the first three over, then reads the plain middle.
        let items = (0..<40).map { n in
            FeedItem(
                id: "\(n)", title: n < 3 || n >= 30 ? "swift \(n)" : "plain \(n)", updated: day.addingTimeInterval(-Double(n) * 60))
        }
        try Self.commit(store, "a", items)
        let selection = StreamSelection(query: try SearchQuery(parsing: "swift"))
        func walk() throws -> [String] {
            var ids: [String] = []
            var cursor: StreamCursor?
            repeat {
                let page = try store.stream(feeds: ["a"], sources: nil, selection: selection, after: cursor, limit: 5)
                #expect(page.totalItems == 13)
                ids += page.entries.map(\.item.id)
                cursor = try page.nextCursor.map(StreamCursor.init)
            } while cursor != nil
            return ids
        }
        func numbered() throws -> [[String]] {
            try (1...3).map { number in
                try store.stream(feeds: ["a"], sources: nil, selection: selection, page: number, perPage: 5).entries.map(\.item.id)
            }
        }
        let expected = ["0", "1", "2"] + (30..<40).map { "\($0)" }
        #expect(try walk() == expected)
        #expect(try numbered() == [Array(expected[0..<5]), Array(expected[5..<10]), Array(expected[10...])])
        // Ten rows: the three matches are handed over before the budget runs out in the middle.
        store.searchWalkBudgetOverride.store(10, ordering: .relaxed)
        #expect(try walk() == expected)
        #expect(try numbered() == [Array(expected[0..<5]), Array(expected[5..<10]), Array(expected[10...])])
        // Room to finish: the walk alone.
        store.searchWalkBudgetOverride.store(1_000, ordering: .relaxed)
        #expect(try walk() == expected)
        #expect(try numbered() == [Array(expected[0..<5]), Array(expected[5..<10]), Array(expected[10...])])
    }

    @Test("a row written without a key (another program's insert) gets one and is indexed")
    func keylessInsert() throws {
        let dir = try TemporaryFolder("search-keyless")
        defer { dir.remove() }
        let path = dir.path("store.sqlite")
        let store = try FeedStore.open(path: path)
        try store.commitPull(
            feed: "a", source: "github.repos", items: [FeedItem(id: "1", title: "first", updated: Date(timeIntervalSince1970: 1))],
            complete: true, stats: PullStats(pages: 1, requests: 1), error: nil, cacheEntries: [])
        try store.close()
        var configuration = Configuration()
        configuration.prepareDatabase { db in db.add(function: SearchIndex.function) }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO item (feed, id, dedup_key, title, sort_key, feed_position, first_seen_at, last_seen_at,
                        seen_pull, content_hash)
                    VALUES ('a', '2', 'k2', 'Written elsewhere', 2, 1, 0, 0, 1, 0)
                    """)
            try db.execute(sql: "UPDATE feed SET visible_items = visible_items + 1 WHERE name = 'a'")
        }
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(DISTINCT doc) FROM item") } == 2)
        try queue.close()
        let reopened = try FeedStore.open(path: path)
        defer { try? reopened.close() }
        #expect(try Self.ids(reopened, "elsewhere", feeds: ["a"]) == ["a/2"])
        #expect(try Self.ids(reopened, "first", feeds: ["a"]) == ["a/1"])
    }
}
