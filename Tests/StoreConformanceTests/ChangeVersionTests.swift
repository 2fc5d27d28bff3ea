import FeedCore
import FeedStorage
import FeedaggTesting
import Foundation
import Testing

@Suite("The store's change number")
struct ChangeVersionTests {
    @Test("moves with every change a read can see (commit, staged pull finished, placement, delete, prune), and only then",
        arguments: StoreEngine.allCases)
    func movesWithVisibleChanges(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        var last = try store.changeVersion()
        func expectMoved(_ what: String, _ moved: Bool = true) async throws {
            let now = try store.changeVersion()
            #expect((now != last) == moved, "\(engine): \(what): \(last) -> \(now)")
            // The async read (serve's, on a connection of its own on SQLite) sees the same number.
            #expect(try await store.awaitChangeVersion() == now, "\(engine): \(what): awaited")
            last = now
        }
        try store.commitPull(pull("a", [item("1", day: 1), item("2")]))
        try await expectMoved("a commit")
        try store.placeUndatedItems(feedOrder: ["a"])
        try await expectMoved("undated items placed")
        try store.placeUndatedItems(feedOrder: ["a"])
        try await expectMoved("nothing left to place", false)
        guard case .fresh(let ticket) = try store.beginPull(feed: "b", source: "test.items", fingerprint: "f", restart: true)
        else { Issue.record("no claim"); return }
        try await expectMoved("a claim", false)
        try store.stagePage(AcceptedPage(number: 1, items: [item("3", day: 2)]), ticket: ticket)
        try await expectMoved("a staged page (invisible)", false)
        _ = try store.stream(feeds: ["a", "b"], limit: 10)
        try await expectMoved("a read", false)
        try store.finishPull(pull("b", [item("3", day: 2)]), ticket: ticket, keepResume: false)
        try await expectMoved("a staged pull finished")
        try store.delete(feeds: ["b"])
        try await expectMoved("a feed deleted")
        try store.prune(keeping: ["a"])
        try await expectMoved("a prune that deletes nothing", false)
        try store.prune(keeping: [])
        try await expectMoved("a prune")
        // Another connection (another process) sees the same number.
        let other = try opened.reopen()
        defer { try? other.close() }
        #expect(try other.changeVersion() == last)
        #expect(try await other.awaitChangeVersion() == last)
        // And a change made through the other store is seen by this one's async read at once.
        try other.commitPull(pull("c", [item("4", day: 3)]))
        #expect(try await store.awaitChangeVersion() == (try other.changeVersion()))
        #expect(try await store.awaitChangeVersion() != last)
        try store.close()
        await #expect(throws: StoreError.self) { try await store.awaitChangeVersion() }
    }

    @Test("a read after a change made elsewhere shows it, though the reader kept the listing and counts of the last read",
        arguments: StoreEngine.allCases)
    func readsFollowOtherWriters(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        let other = try opened.reopen()
        defer { try? other.close() }
        let feeds = ["a", "b"]
        func itemOfA(_ day: Int) -> FeedItem { item("a\(day)", url: "https://x/a\(day)", day: day) }
        func expectPage(_ what: String, after cursor: String? = nil, _ ids: [String], total: Int, feedsOf shared: [String]? = nil) throws {
            let page = try store.stream(feeds: feeds, after: try cursor.map(StreamCursor.init), limit: 2)
            #expect(page.entries.map(\.item.id) == ids, "\(engine): \(what)")
            #expect(page.totalItems == total, "\(engine): \(what): total")
            if let shared { #expect(page.entries.first?.feeds == shared, "\(engine): \(what): carriers") }
        }
        try store.commitPull(pull("a", (1...4).map(itemOfA)))
        // Read twice: the second read is the one a kept listing serves.
        try expectPage("a alone", ["a4", "a3"], total: 4)
        try expectPage("a alone, again", ["a4", "a3"], total: 4)
        let afterA3 = try #require(try store.stream(feeds: feeds, limit: 2).nextCursor)
        // A feed this store has never seen, committed by another process.
        try other.commitPull(pull("b", [item("b5", day: 5), item("b6", day: 6)]))
        try expectPage("b committed elsewhere", ["b6", "b5"], total: 6)
        try expectPage("after a cursor, b committed elsewhere", after: afterA3, ["a2", "a1"], total: 6)
        // More items in a known feed (its visible count moves).
        try other.commitPull(pull("a", (1...7).map(itemOfA)))
        try expectPage("a grown elsewhere", ["a7", "a6"], total: 9)
        try expectPage("after a cursor, a grown elsewhere", after: afterA3, ["a2", "a1"], total: 9)
        // An item b shares with a (the same URL): shown once, listing both feeds; the repeats move.
        try other.commitPull(pull("b", [item("b5", day: 5), item("b6", day: 6), item("b8", url: "https://x/a7", day: 8)]))
        try expectPage("a shared item elsewhere", ["a7", "a6"], total: 9, feedsOf: ["a", "b"])
        try other.delete(feeds: ["b"])
        try expectPage("b deleted elsewhere", ["a7", "a6"], total: 7, feedsOf: ["a"])
    }

    @Test("items waiting to be placed come after the placed ones, on every read (first page, page by number, after a cursor)",
        arguments: StoreEngine.allCases)
    func pendingItemsEndTheStream(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        // Undated items wait for `placeUndatedItems`: until then they follow every placed one.
        try store.commitPull(pull("a", [item("a1", day: 1), item("a2", day: 2), item("a3", day: 3), item("u")]))
        for round in 1...2 {  // the second round reads what the first kept
            let context = "\(engine), round \(round)"
            #expect(try store.stream(feeds: ["a"], limit: 10).entries.map(\.item.id) == ["a3", "a2", "a1", "u"], "\(context)")
            #expect(
                try store.stream(feeds: ["a"], page: 1, perPage: 10).entries.map(\.item.id) == ["a3", "a2", "a1", "u"],
                "\(context)")
            #expect(try store.stream(feeds: ["a"], page: 2, perPage: 2).entries.map(\.item.id) == ["a1", "u"], "\(context)")
            let first = try store.stream(feeds: ["a"], limit: 2)
            #expect(first.entries.map(\.item.id) == ["a3", "a2"] && first.totalItems == 4, "\(context)")
            let rest = try store.stream(feeds: ["a"], after: try first.nextCursor.map(StreamCursor.init), limit: 10)
            #expect(rest.entries.map(\.item.id) == ["a1", "u"] && rest.nextCursor == nil, "\(context)")
        }
    }
}
