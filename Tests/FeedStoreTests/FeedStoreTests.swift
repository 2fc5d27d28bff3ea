import Dispatch
import FeedCore
import FeedaggTesting
import Foundation
import Synchronization
import Testing

@testable import FeedStore

@Suite("Opening the store")
struct OpeningTests {
    @Test("migrations create the schema, in WAL mode, with parent directories")
    func schema() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let path = dir.path("deep/er/feedagg.sqlite")
        let store = try FeedStore.open(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try store.schemaVersions() == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"])
        #expect(try store.strings(sql: "PRAGMA journal_mode") == ["wal"])
        let tables = try store.strings(sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(Set(tables).isSuperset(of: ["feed", "item", "http_cache"]))
        let indexes = try store.strings(sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'item'")
        #expect(indexes.contains("item_stream_order"))
        #expect(try store.integrityCheck())
        try store.close()
        // Reopening applies nothing twice.
        let again = try FeedStore.open(path: path)
        #expect(try again.schemaVersions() == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"])
    }

    @Test("a store written by a newer schema is refused")
    func newerSchema() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let path = dir.path("s.sqlite")
        let store = try FeedStore.open(path: path)
        try store.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v999')")
        try store.close()
        let error = #expect(throws: StoreError.self) { try FeedStore.open(path: path) }
        #expect(error?.kind == .schemaTooNew)
        #expect(error?.description.contains(path) == true)
    }

    @Test("a file that is not a database is reported as not a store (issue 14: it used to say damaged)")
    func notADatabase() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let path = dir.path("junk.sqlite")
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: StoreError.self) { try FeedStore.open(path: path) }
        #expect(error?.kind == .notAStore)
        #expect(error?.description.contains("\(path) is not a feedagg store") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 0x41, count: 8192), "left untouched")
    }

    @Test("a SQLite file whose pages are garbage is still reported as damaged")
    func corruptDatabase() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let path = dir.path("corrupt.sqlite")
        try (Data("SQLite format 3\0".utf8) + Data(repeating: 0x41, count: 8192)).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: StoreError.self) { try FeedStore.open(path: path) }
        #expect(error?.kind == .damaged)
    }

    @Test(
        "default path",
        arguments: [
            (["XDG_DATA_HOME": "/x/data", "HOME": "/home/u"], "/x/data/feedagg/feedagg.sqlite"),
            (["HOME": "/home/u"], "/home/u/.local/share/feedagg/feedagg.sqlite"),
            (["XDG_DATA_HOME": "relative", "HOME": "/home/u"], "/home/u/.local/share/feedagg/feedagg.sqlite"),
            (["XDG_DATA_HOME": "", "HOME": "/home/u"], "/home/u/.local/share/feedagg/feedagg.sqlite"),
        ])
    func defaultPath(_ environment: [String: String], _ expected: String) throws {
        #expect(try FeedStore.defaultPath(environment: environment) == expected)
    }

    @Test("no default path without HOME")
    func noDefaultPath() {
        let error = #expect(throws: StoreError.self) { try FeedStore.defaultPath(environment: [:]) }
        #expect(error?.kind == .noDefaultLocation)
    }
}

@Suite("Committing pulls")
struct CommitTests {
    @Test("upsert: new, unchanged and changed items; the changed one is updated in place")
    func upsert() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let clock = TestClock()
        let store = try FeedStore.open(path: dir.path("s.sqlite"), now: clock.read)
        let first = [item("1", url: "https://x.test/1", day: 1), item("2", day: 2), item("3")]
        let t0 = clock.now
        #expect(try store.commitPull(pull("f", "src", first)) == CommitSummary(inserted: 3))

        clock.advance(by: 3600)
        var changed = first
        changed[1].title = "renamed"
        changed[1].raw = Data(#"{"id":"2","name":"renamed"}"#.utf8)
        #expect(try store.commitPull(pull("f", "src", changed)) == CommitSummary(inserted: 0, updated: 1, unchanged: 2))

        let entries = try allEntries(store, feeds: ["f"])
        #expect(entries.count == 3)
        #expect(entries.map(\.item.id) == ["2", "1", "3"])
        var shown = changed[1]
        shown.raw = nil  // (no page shows an item's original JSON: StoredStreamPage)
        #expect(entries[0].item == shown)
        #expect(try storedItems(store, feed: "f", changed)[1] == changed[1], "stored with its JSON")
        let seen = try store.strings(
            sql: "SELECT id || ':' || first_seen_at || ':' || last_seen_at FROM item ORDER BY id")
        let t1 = clock.now.timeIntervalSince1970
        #expect(
            seen == ["1", "2", "3"].map { "\($0):\(t0.timeIntervalSince1970):\(t1)" })
        #expect(try store.feedSummaries().map(\.itemCount) == [3])
    }

    @Test("an item round-trips exactly, nil fields and raw bytes included")
    func roundTrip() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let store = try FeedStore.open(path: dir.path("s.sqlite"))
        let full = FeedItem(
            id: "full", title: "Title é", summary: "", url: "https://x.test/a?b=1",
            author: FeedAuthor(name: "ann", url: "https://x.test/ann", avatarURL: nil), imageURL: "https://img.test/1",
            published: ISO8601.date(from: "2017-10-02T17:43:27.250+00:00"),
            updated: ISO8601.date(from: "2021-01-26T19:01:12Z"), raw: Data([0, 1, 2, 0xFF]))
        let bare = FeedItem(id: "bare", title: "")
        let emptyAuthor = FeedItem(id: "anon", title: "t", author: FeedAuthor(name: ""), raw: Data())
        try store.commitPull(pull("f", "s", [full, bare, emptyAuthor]))
        try store.placeUndatedItems(feedOrder: ["f"])
        // As stored (the store's own read, as a page answered 304 is rebuilt from it) ...
        #expect(try storedItems(store, feed: "f", [full, bare, emptyAuthor]) == [full, bare, emptyAuthor])
        // ... and as a page shows it: everything but the original JSON (StoredStreamPage).
        let shown = Dictionary(uniqueKeysWithValues: try allEntries(store, feeds: ["f"]).map { ($0.item.id, $0.item) })
        for var item in [full, bare, emptyAuthor] {
            item.raw = nil
            #expect(shown[item.id] == item)
        }
    }

    @Test("a failed pull keeps every stored item, upserts what it fetched and records the error")
    func failedPull() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let clock = TestClock()
        let store = try FeedStore.open(path: dir.path("s.sqlite"), now: clock.read)
        try store.commitPull(
            feed: "f", source: "s", items: (1...5).map { (n: Int) in item("\(n)", day: n) }, complete: true,
            stats: PullStats(pages: 3, requests: 3), error: nil, cacheEntries: [])
        let success = clock.now
        clock.advance(by: 60)
        let summary = try store.commitPull(
            feed: "f", source: "s", items: [item("1", day: 1, title: "new title"), item("6", day: 6)], complete: false,
            stats: PullStats(pages: 1, requests: 2), error: "feed 'f': GET https://x.test/?page=2 (page 2): HTTP 500",
            cacheEntries: [])
        #expect(summary == CommitSummary(inserted: 1, updated: 1, unchanged: 0, missing: 0))
        #expect(try allEntries(store, feeds: ["f"]).map(\.item.id) == ["6", "5", "4", "3", "2", "1"])
        var feed = try #require(try store.feedSummaries().first)
        #expect(feed.lastError?.contains("HTTP 500") == true)
        #expect(feed.lastSuccessAt == success)
        #expect(feed.lastAttemptAt == clock.now)
        #expect(feed.lastPages == 1 && feed.lastRequests == 2 && feed.lastItems == 2)
        #expect(try store.previousPageCount(feed: "f") == 3)

        clock.advance(by: 60)
        try store.recordFailure(feed: "f", source: "s", error: "connection failed", stats: PullStats(pages: 0, requests: 1))
        #expect(try allEntries(store, feeds: ["f"]).count == 6)
        feed = try #require(try store.feedSummaries().first)
        #expect(feed.lastError == "connection failed")
        #expect(feed.lastItems == 0)
        #expect(feed.lastSuccessAt == success)

        // A later success clears the error; a complete pull keeps (and marks) what it no longer returns.
        clock.advance(by: 60)
        let last = try store.commitPull(pull("f", "s", [item("6", day: 6)]))
        #expect(last.missing == 5)
        feed = try #require(try store.feedSummaries().first)
        #expect(feed.lastError == nil)
        #expect(feed.lastSuccessAt == clock.now)
        #expect(feed.itemCount == 6 && feed.missingCount == 5)
        #expect(try allEntries(store, feeds: ["f"]).count == 6)
        #expect(try store.previousPageCount(feed: "f") == 1)
        #expect(try store.previousPageCount(feed: "never") == nil)
    }

    @Test("a throw inside the write transaction leaves the previous state, also after reopening")
    func rollbackOnCrash() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let path = dir.path("s.sqlite")
        struct Crash: Error {}
        let store = try FeedStore.open(
            path: path, busyTimeout: .seconds(5), now: { Date(timeIntervalSince1970: 1_700_000_000) },
            beforeCommit: { feed in if feed == "doomed" || feed == "f-crash" { throw Crash() } })
        let cache = HTTPCacheEntry(url: "https://x.test/f?page=1", status: 200, headers: ["ETag": "\"v1\""], body: Data("[1]".utf8))
        try store.commitPull(pull("f", "s", [item("1", day: 1), item("2", day: 2)], cache: [cache]))
        let before = try allEntries(store, feeds: ["f"]).map(EntryShape.init)

        // The same feed, renamed in the hook's eyes: everything it wrote must vanish.
        var crashing = pull("f", "s", [item("1", day: 1, title: "changed"), item("3", day: 3)])
        crashing.feed = "f-crash"
        crashing.cacheEntries = [HTTPCacheEntry(url: "https://x.test/f?page=1", status: 200, headers: ["ETag": "\"v2\""], body: Data("[2]".utf8))]
        #expect(throws: StoreError.self) { try store.commitPull(crashing) }
        #expect(throws: StoreError.self) {
            try store.commitPull(pull("doomed", "s", [item("9", day: 9)], cache: [
                HTTPCacheEntry(url: "https://x.test/doomed", status: 200, headers: [:], body: Data("x".utf8))
            ]))
        }
        #expect(try store.cachedResponse(for: "https://x.test/doomed") == nil)
        #expect(try store.cachedResponse(for: "https://x.test/f?page=1")?.etag == "\"v1\"")
        #expect(try store.feedSummaries().map(\.name) == ["f"])
        try store.close()

        let reopened = try FeedStore.open(path: path)
        #expect(try reopened.integrityCheck())
        #expect(try allEntries(reopened, feeds: ["f", "f-crash", "doomed"]).map(EntryShape.init) == before)
        #expect(try reopened.cachedResponse(for: "https://x.test/f?page=1")?.body == Data("[1]".utf8))
        #expect(try reopened.feedSummaries().map(\.name) == ["f"])
    }
}

@Suite("The HTTP cache")
struct HTTPCacheTests {
    @Test("an entry round-trips and is replaced by the next commit")
    func roundTrip() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let clock = TestClock()
        let store = try FeedStore.open(path: dir.path("s.sqlite"), now: clock.read)
        let headers: HTTPHeaders = HTTPHeaders([
            ("ETag", "W/\"abc\""), ("Last-Modified", "Tue, 01 Oct 2024 10:00:00 GMT"), ("Link", "<a>; rel=\"next\""),
            ("Link", "<b>; rel=\"last\""), ("Content-Type", "application/json"),
        ])
        let entry = HTTPCacheEntry(
            url: "https://api.test/orgs/x/repos?page=1&access_token=REDACTED", status: 200, headers: headers,
            body: Data([0x5B, 0x00, 0xFF, 0x5D]))
        #expect(entry.etag == "W/\"abc\"")
        #expect(entry.lastModified == "Tue, 01 Oct 2024 10:00:00 GMT")
        #expect(try store.cachedResponse(for: entry.url) == nil)
        try store.commitPull(pull("f", "s", [], cache: [entry]))
        var expected = entry
        expected.storedAt = clock.now
        expected.feed = "f"
        #expect(try store.cachedResponse(for: entry.url) == expected)

        clock.advance(by: 10)
        let newer = HTTPCacheEntry(url: entry.url, status: 200, headers: ["ETag": "\"n\""], body: Data())
        try store.commitPull(pull("f", "s", [], cache: [newer]))
        let stored = try #require(try store.cachedResponse(for: entry.url))
        #expect(stored.etag == "\"n\"" && stored.lastModified == nil && stored.body.isEmpty)
        #expect(stored.storedAt == clock.now)
    }
}

@Suite("The stored stream")
struct StreamTests {
    let declared = ["repos", "members", "gists", "members2"]

    /// Dated, undated, ties, and duplicates across feeds (dated/dated, undated/undated, undated first/dated).
    var inputs: [UnifiedStream.Input] {
        [
            UnifiedStream.Input(
                feed: "repos", source: "github.repos",
                items: [
                    item("r1", url: "https://h.test/a", day: 10), item("r2", url: "https://h.test/b", day: 5),
                    item("r3", url: "https://h.test/c", day: 4), item("r4", day: 1),
                    item("r5", url: "https://h.test/d", day: 9),
                ]),
            UnifiedStream.Input(
                feed: "members", source: "github.members",
                items: (1...5).map { item("m\($0)", url: $0 == 5 ? "https://h.test/e" : "https://h.test/m\($0)") }),
            UnifiedStream.Input(
                feed: "gists", source: "github.gists",
                items: [
                    item("g1", url: "HTTP://H.test/b/", day: 7), item("g2", url: "https://h.test/e", day: 9),
                    item("g3", url: "https://h.test/f", day: 4), item("g4", url: "https://h.test/g", day: 0),
                ]),
            UnifiedStream.Input(
                feed: "members2", source: "github.members",
                items: [
                    item("x1", url: "https://h.test/x1"), item("x2", url: "https://h.test/m3"),
                    item("x3", url: "https://h.test/x3"), item("x4", url: "https://h.test/x4", day: 3),
                ]),
        ]
    }

    enum CommitStyle: String, CaseIterable, Sendable {
        case batchInOrder, batchReversed, oneByOneThenPlace
    }

    @Test("the stream equals UnifiedStream.merge of the same inputs", arguments: CommitStyle.allCases)
    func equalsMerge(_ style: CommitStyle) throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let store = try FeedStore.open(path: dir.path("s.sqlite"))
        let pulls = inputs.map { pull($0.feed, $0.source, $0.items) }
        switch style {
        case .batchInOrder: try store.commit(pulls, feedOrder: declared)
        case .batchReversed: try store.commit(pulls.reversed(), feedOrder: declared)
        case .oneByOneThenPlace:
            for pull in pulls { try store.commitPull(pull) }
            try store.placeUndatedItems(feedOrder: declared)
        }
        let merged = UnifiedStream.merge(inputs)
        let expected = merged.map(EntryShape.init)
        #expect(try allEntries(store, feeds: declared).map(EntryShape.init) == expected)
        #expect(try allEntries(store, feeds: declared, limit: 3).map(EntryShape.init) == expected)
        for page in 1...4 {
            let stored = try store.stream(feeds: declared, page: page, perPage: 5)
            let reference = UnifiedStream.page(merged, page: page, perPage: 5)
            #expect(stored.entries.map(EntryShape.init) == reference.entries.map(EntryShape.init))
            #expect(stored.totalItems == reference.totalItems)
            #expect(stored.totalPages == reference.totalPages)
            #expect(stored.page == page)
        }
        // The same merge rule holds for any selection of the feeds placed together.
        let pair = [inputs[2], inputs[0]]
        #expect(
            try allEntries(store, feeds: pair.map(\.feed)).map(EntryShape.init)
                == UnifiedStream.merge(pair).map(EntryShape.init))
    }

    @Test("undated items keep their place when later pulls add dated items")
    func undatedStayPut() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let store = try FeedStore.open(path: dir.path("s.sqlite"))
        let dated = (0..<10).map { item("d\($0)", day: 100 - $0 * 2) }
        let members = (0..<4).map { item("m\($0)") }
        try store.commit([pull("d", "s", dated), pull("m", "t", members)], feedOrder: ["d", "m"])
        let ids = try allEntries(store, feeds: ["d", "m"]).map(\.item.id)
        #expect(ids == ["d0", "d1", "m0", "d2", "d3", "m1", "d4", "d5", "m2", "d6", "d7", "m3", "d8", "d9"])

        // Ten more dated items, interleaved: the members stay right after the items they followed.
        let more = (0..<10).map { item("e\($0)", day: 101 - $0 * 2) }
        try store.commit([pull("d", "s", dated + more), pull("m", "t", members + [item("m4")])], feedOrder: ["d", "m"])
        let after = try allEntries(store, feeds: ["d", "m"]).map(\.item.id)
        for (member, anchor) in [("m0", "d1"), ("m1", "d3"), ("m2", "d5"), ("m3", "d7")] {
            let index = try #require(after.firstIndex(of: member))
            #expect(after[index - 1] == anchor)
        }
        #expect(after.count == 25)
        #expect(Set(after).count == 25)
    }

    @Test("without any dated item, undated items are listed in feed order, then wire order")
    func onlyUndated() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let store = try FeedStore.open(path: dir.path("s.sqlite"))
        let a = UnifiedStream.Input(feed: "a", source: "s", items: [item("a1"), item("a2")])
        let b = UnifiedStream.Input(feed: "b", source: "s", items: [item("b1"), item("a1")])
        try store.commit([pull("b", "s", b.items), pull("a", "s", a.items)], feedOrder: ["a", "b"])
        #expect(
            try allEntries(store, feeds: ["a", "b"]).map(EntryShape.init)
                == UnifiedStream.merge([a, b]).map(EntryShape.init))
    }

    @Test("cursor paging never repeats or skips while newer and older items arrive between pages")
    func cursorPaging() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let store = try FeedStore.open(path: dir.path("s.sqlite"))
        var itemsA = (0..<30).map { item("a\($0)", day: 100 - $0 * 2) }
        var itemsM = (0..<4).map { item("m\($0)") }
        let itemsB = (0..<6).map { item("b\($0)", day: 99 - $0 * 10) }
        try store.commit([pull("a", "s", itemsA), pull("m", "t", itemsM), pull("b", "s", itemsB)], feedOrder: ["a", "m", "b"])
        let initial = Set(try allEntries(store, feeds: ["a", "m", "b"]).map(\.item.id))
        #expect(initial.count == 40)

        var shown: [String] = []
        var mustAppear = initial
        var mustNotAppear = Set<String>()
        var cursor: StreamCursor?
        var round = 0
        repeat {
            let page = try store.stream(feeds: ["a", "m", "b"], after: cursor, limit: 6)
            shown += page.entries.map(\.item.id)
            cursor = try page.nextCursor.map(StreamCursor.init)
            round += 1
            guard cursor != nil else { break }
            // Between pages: a newer item (before the cursor), an older one (after it), one just
            // after the cursor's own date, and a new undated member.
            let lastDay = page.entries.last?.item.sortDate.map { Int(($0.timeIntervalSince1970 - 1_700_000_000) / 86_400) }
            itemsA.append(item("new\(round)", day: 200 + round))
            itemsA.append(item("old\(round)", day: -round))
            mustNotAppear.insert("new\(round)")
            mustAppear.insert("old\(round)")
            if let lastDay {
                itemsA.append(item("mid\(round)", day: lastDay - 1))
                mustAppear.insert("mid\(round)")
            }
            itemsM.append(item("late\(round)"))
            try store.commit([pull("a", "s", itemsA), pull("m", "t", itemsM)], feedOrder: ["a", "m", "b"])
        } while cursor != nil && round < 100

        #expect(shown.count == Set(shown).count, "repeated: \(shown)")
        #expect(mustAppear.isSubset(of: Set(shown)), "missing: \(mustAppear.subtracting(shown).sorted())")
        #expect(mustNotAppear.isDisjoint(with: Set(shown)))
        // Every item is somewhere in a fresh walk, once.
        let everything = try allEntries(store, feeds: ["a", "m", "b"], limit: 7).map(\.item.id)
        #expect(everything.count == Set(everything).count)
        #expect(Set(everything).isSuperset(of: Set(shown)))
        #expect(everything.count == itemsA.count + itemsM.count + itemsB.count)
    }

    @Test("filters by feed and by source; duplicates count only within the selection")
    func filters() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let store = try FeedStore.open(path: dir.path("s.sqlite"))
        try store.commit(inputs.map { pull($0.feed, $0.source, $0.items) }, feedOrder: declared)

        let gists = try allEntries(store, feeds: declared, sources: ["github.gists"])
        #expect(gists.map(\.item.id) == ["g2", "g1", "g3", "g4"])
        #expect(gists.allSatisfy { $0.feeds == ["gists"] && $0.source == "github.gists" })

        let onlyGists = try allEntries(store, feeds: ["gists"])
        #expect(onlyGists.map(\.item.id) == gists.map(\.item.id))

        let members = try store.stream(feeds: declared, sources: ["github.members"], after: nil, limit: 100)
        #expect(members.totalItems == 8)  // m1…m5, x1, x3, x4 (x2 is m3)
        #expect(members.entries.first { $0.item.id == "m3" }?.feeds == ["members", "members2"])
        #expect(members.nextCursor == nil)

        #expect(try store.stream(feeds: [], after: nil, limit: 10).entries.isEmpty)
        #expect(try store.stream(feeds: ["nope"], after: nil, limit: 10).totalItems == 0)
    }

    @Test("a feed no longer declared is not shown, and prune deletes it with its items and cache")
    func removedFeed() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let store = try FeedStore.open(path: dir.path("s.sqlite"))
        let cache = HTTPCacheEntry(url: "https://x.test/old", status: 200, headers: [:], body: Data("[]".utf8))
        try store.commit(
            [pull("keep", "s", [item("k1", day: 1)]), pull("old", "s", [item("o1", day: 2), item("o2", day: 3)], cache: [cache])],
            feedOrder: ["keep", "old"])
        #expect(try allEntries(store, feeds: ["keep"]).map(\.item.id) == ["k1"])
        #expect(try store.feedSummaries().map(\.name) == ["keep", "old"])

        let pruned = try store.prune(keeping: ["keep"])
        #expect(pruned.feeds == 1 && pruned.items == 2)
        #expect(try store.feedSummaries().map(\.name) == ["keep"])
        #expect(try store.cachedResponse(for: cache.url) == nil)
        #expect(try allEntries(store, feeds: ["keep", "old"]).map(\.item.id) == ["k1"])
        #expect(try store.prune(keeping: ["keep"]) == (0, 0))
    }

    @Test("a malformed cursor is a typed error")
    func badCursor() {
        for token in ["", "not base64!", "eyJ2IjoyfQ"] {
            let error = #expect(throws: StoreError.self) { try StreamCursor(token) }
            #expect(error?.kind == .invalidCursor)
        }
    }
}

@Suite("Several writers")
struct ConcurrencyTests {
    @Test("two stores on one file writing concurrently leave it intact")
    func twoWriters() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let path = dir.path("s.sqlite")
        let stores = [try FeedStore.open(path: path), try FeedStore.open(path: path)]
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            for round in 0..<25 {
                let items = (0...round).map { item("w\(writer)-\($0)", day: $0) }
                do {
                    try stores[writer].commit(
                        [pull("feed\(writer)", "s", items), pull("shared", "s", [item("s\(writer)-\(round)")])],
                        feedOrder: ["feed0", "feed1", "shared"])
                    _ = try stores[1 - writer].stream(feeds: ["feed0", "feed1", "shared"], after: nil, limit: 10)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let check = try FeedStore.open(path: path)
        #expect(try check.integrityCheck())
        let counts = Dictionary(uniqueKeysWithValues: try check.feedSummaries().map { ($0.name, $0.itemCount) })
        #expect(counts == ["feed0": 25, "feed1": 25, "shared": 50])
        #expect(try allEntries(check, feeds: ["feed0", "feed1", "shared"]).count == 100)
    }

    @Test("a writer that cannot get the lock in time gets a clear error")
    func locked() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let path = dir.path("s.sqlite")
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = try FeedStore.open(
            path: path, busyTimeout: .seconds(5), now: { Date() },
            beforeCommit: { _ in
                inside.signal()
                release.wait()
            })
        let waiter = try FeedStore.open(path: path, busyTimeout: .milliseconds(200))
        let done = DispatchGroup()
        let holderResult = Mutex<String?>(nil)
        DispatchQueue.global().async(group: done) {
            do { try holder.commitPull(pull("a", "s", [item("1", day: 1)])) } catch {
                holderResult.withLock { $0 = "\(error)" }
            }
        }
        inside.wait()
        let error = #expect(throws: StoreError.self) { try waiter.commitPull(pull("b", "s", [item("2", day: 2)])) }
        release.signal()
        done.wait()
        #expect(error?.kind == .locked)
        #expect(error?.description.hasPrefix("the store \(path) is locked by another feedagg process") == true)
        #expect(holderResult.withLock { $0 } == nil)
        // Once the lock is free, the waiter writes.
        try waiter.commitPull(pull("b", "s", [item("2", day: 2)]))
        #expect(try waiter.feedSummaries().map(\.name) == ["a", "b"])
    }
}
