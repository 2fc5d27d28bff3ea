import FeedCore
import FeedaggTesting
import Foundation
import Testing

@testable import FeedStore

@Suite("Raw JSON retention (keep_raw)")
struct RawRetentionTests {
    let items = [
        item("a", url: "https://h.test/a", day: 1), item("b", day: 2),
        item("c", url: "https://h.test/c", title: "third"),
    ]

    func rawCount(_ store: FeedStore) throws -> String {
        try store.strings(sql: "SELECT COUNT(*) FROM item WHERE raw IS NOT NULL")[0]
    }

    /// The stored items, as a `304` page rebuilt from the store gives them back.
    func rebuilt(_ store: FeedStore) throws -> [FeedItem] {
        let page = try store.rebuildPage(StoredPageSummary(AcceptedPage(number: 1, items: items)), feed: "f")
        return try #require(page).items
    }

    @Test("without keepRaw, items are stored without their JSON and keep the digest of the item as fetched")
    func dropped() throws {
        let dir = try TemporaryFolder("raw-retention")
        defer { dir.remove() }
        let store = try FeedStore.open(path: dir.path("s.sqlite"), keepRaw: false)
        #expect(try store.commitPull(pull("f", "github.repos", items)).inserted == 3)
        #expect(try rawCount(store) == "0")
        // The incremental baseline still recognises the fetched items as stored unchanged.
        #expect(try store.baseline(for: "f", source: "github.repos") != nil)
        let digests = try store.storedDigests(for: "f")
        #expect(items.allSatisfy(digests.isStoredUnchanged))
        // The same items fetched again, and the page rebuilt from the store: unchanged, not rewritten.
        #expect(try store.commitPull(pull("f", "github.repos", items)) == CommitSummary(unchanged: 3))
        let fromStore = try rebuilt(store)
        #expect(fromStore.allSatisfy { $0.raw == nil })
        #expect(try store.commitPull(pull("f", "github.repos", fromStore)) == CommitSummary(unchanged: 3))
        // A changed item is updated, still without its JSON.
        var changed = items
        changed[1].title = "renamed"
        #expect(try store.commitPull(pull("f", "github.repos", changed)) == CommitSummary(updated: 1, unchanged: 2))
        #expect(try rawCount(store) == "0")
        #expect(try store.stream(feeds: ["f"], page: 1, perPage: 10).entries.map(\.item.title).contains("renamed"))
        try store.close()
    }

    @Test("switching the retention rewrites each stored item once, then the items are unchanged again")
    func switching() throws {
        let dir = try TemporaryFolder("raw-retention")
        defer { dir.remove() }
        let path = dir.path("s.sqlite")
        var store = try FeedStore.open(path: path, keepRaw: false)
        try store.commitPull(pull("f", "github.repos", items))
        try store.close()

        store = try FeedStore.open(path: path, keepRaw: true)
        #expect(try store.commitPull(pull("f", "github.repos", items)) == CommitSummary(updated: 3))
        #expect(try rawCount(store) == "3")
        #expect(try rebuilt(store) == items)
        #expect(try store.commitPull(pull("f", "github.repos", items)) == CommitSummary(unchanged: 3))
        try store.close()

        store = try FeedStore.open(path: path, keepRaw: false)
        #expect(try store.commitPull(pull("f", "github.repos", items)) == CommitSummary(updated: 3))
        #expect(try rawCount(store) == "0")
        #expect(try store.commitPull(pull("f", "github.repos", items)) == CommitSummary(unchanged: 3))
        try store.close()
    }
}
