import FeedCore
import FeedSearch
import FeedStorage
import FeedStore
import FeedaggTesting
import Foundation
import Testing

/// One suite, run against both engines: the semantics ``StoreDriver`` promises.
@Suite("Store conformance")
struct StoreConformanceTests {
    @Test("a commit is upserted by (feed, id), read back in stream order, and counted in the summary", arguments: StoreEngine.allCases)
    func commitAndReadBack(engine: StoreEngine) async throws {
        let clock = ManualClock()
        let opened = try await engine.open(clock: clock)
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        let first = try store.commitPull(pull("a", [item("1", day: 1), item("2", day: 3), item("3", day: 2)]))
        #expect(first == CommitSummary(inserted: 3))
        clock.advance(by: 60)
        let second = try store.commitPull(
            pull("a", [item("1", day: 1), item("2", day: 3, title: "changed"), item("4", day: 4)]))
        #expect(second == CommitSummary(inserted: 1, updated: 1, unchanged: 1, missing: 1))
        let page = try store.stream(feeds: ["a"], sources: nil, page: 1, perPage: 10)
        #expect(page.entries.map(\.item.id) == ["4", "2", "3", "1"])
        #expect(page.entries[1].item.title == "changed")
        #expect(page.totalItems == 4)
        let summary = try #require(try store.feedSummaries().first)
        #expect(summary.name == "a" && summary.itemCount == 4 && summary.missingCount == 1)
        #expect(summary.lastSuccessAt == clock.now)
        #expect(try store.feedNames() == ["a"])
        #expect(try store.baseline(for: "a", source: "test.items") != nil)
        #expect(try store.storedDigests(for: "a").digests.count == 4)
        #expect(try store.schemaVersions().isEmpty == false)
    }

    @Test("a failed pull keeps every stored item and records its error", arguments: StoreEngine.allCases)
    func failedPull(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        try store.commitPull(pull("a", [item("1", day: 1), item("2", day: 2)]))
        try store.recordFailure(feed: "a", source: "test.items", error: "HTTP 500", stats: PullStats(pages: 0, requests: 1))
        let summary = try #require(try store.feedSummaries().first)
        #expect(summary.itemCount == 2 && summary.lastError == "HTTP 500")
        #expect(try store.baseline(for: "a", source: "test.items") == nil)
    }

    @Test("an item two feeds carry is stored with each and shown once, listing both", arguments: StoreEngine.allCases)
    func provenance(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        try store.commit(
            [
                pull("a", [item("a1", url: "https://example.com/shared", day: 2), item("a2", day: 1)]),
                pull("b", [item("b1", url: "https://example.com/shared", day: 2), item("b2", day: 3)]),
            ], feedOrder: ["a", "b"])
        let page = try store.stream(feeds: ["a", "b"], sources: nil, page: 1, perPage: 10)
        #expect(shapes(page.entries) == ["b/b2", "a/a1 a,b", "a/a2"])
        #expect(page.totalItems == 3)
        // Listed the other way round, the shared item comes from b.
        #expect(shapes(try store.stream(feeds: ["b", "a"], sources: nil, page: 1, perPage: 10).entries)
            == ["b/b2", "b/b1 b,a", "a/a2"])
        #expect(try store.feedSummaries().map(\.itemCount) == [2, 2])
    }

    @Test("total_items follows every change of the shared items: commits, deletions, prunes, each listing", arguments: StoreEngine.allCases)
    func totalsFollowSharing(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        // Totals by page number and by cursor, beside the entries a walk finds, after each change
        // (the repeated entries totals subtract are counted once per change: a stale count shows).
        func totals(_ feeds: [String]) throws -> [Int] {
            [
                try store.stream(feeds: feeds, sources: nil, page: 1, perPage: 2).totalItems,
                try store.stream(feeds: feeds, sources: nil, after: nil, limit: 2).totalItems,
                try walk(store, feeds: feeds, limit: 2).entries.count,
            ]
        }
        let u = (1...3).map { "https://example.com/shared/\($0)" }
        try store.commit(
            [pull("a", [item("a1", url: u[0], day: 1), item("a2", url: u[1], day: 2)]), pull("b", [item("b1", url: u[0], day: 1)])],
            feedOrder: ["a", "b"])
        #expect(try totals(["a", "b"]) == [2, 2, 2])
        #expect(try totals(["b"]) == [1, 1, 1])
        // b now carries a2's URL too, and a third one of its own.
        try store.commit(
            [pull("b", [item("b1", url: u[0], day: 1), item("b2", url: u[1], day: 2), item("b3", url: u[2], day: 3)])],
            feedOrder: ["a", "b"])
        #expect(try totals(["a", "b"]) == [3, 3, 3])
        #expect(try totals(["b"]) == [3, 3, 3])
        // c repeats all three, and one more of its own.
        try store.commit(
            [pull("c", (0..<3).map { item("c\($0)", url: u[$0], day: $0 + 1) } + [item("c3", day: 4)])], feedOrder: ["a", "b", "c"])
        #expect(try totals(["a", "b", "c"]) == [4, 4, 4])
        #expect(try totals(["a", "b"]) == [3, 3, 3])
        #expect(try totals(["c", "a"]) == [4, 4, 4])
        try store.delete(feeds: ["b"])
        #expect(try totals(["a", "c"]) == [4, 4, 4])
        try store.prune(keeping: ["a"])
        #expect(try totals(["a"]) == [2, 2, 2])
        try store.commit([pull("d", [item("d1", url: u[0], day: 1), item("d2", day: 5)])], feedOrder: ["a", "d"])
        #expect(try totals(["a", "d"]) == [3, 3, 3])
    }

    @Test("a search's total_items follows every change: commits, sharing, deletions (totals are kept per change)", arguments: StoreEngine.allCases)
    func searchTotalsFollowChanges(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        // Words only (counted by the index), a negation, a field with a feed: by page number and
        // by cursor, each read twice after each change (the second read is the kept total's).
        let selections = try ["swift", "swift OR rust", "-rust", "title:swift feed:a"].map {
            StreamSelection(query: try SearchQuery(parsing: $0))
        }
        func totals(_ feeds: [String]) throws -> [[Int]] {
            try selections.map { selection in
                try (0..<2).flatMap { _ in
                    [
                        try store.stream(feeds: feeds, sources: nil, selection: selection, page: 1, perPage: 2).totalItems,
                        try store.stream(feeds: feeds, sources: nil, selection: selection, after: nil, limit: 2).totalItems,
                    ]
                }
            }
        }
        func each(_ counts: [Int]) -> [[Int]] { counts.map { Array(repeating: $0, count: 4) } }
        let a = [item("a1", day: 1, title: "swift one"), item("a2", day: 2, title: "rust two")]
        try store.commit([pull("a", a)], feedOrder: ["a"])
        #expect(try totals(["a"]) == each([1, 2, 1, 1]))
        try store.commit([pull("a", a + [item("a3", day: 3, title: "swift three")])], feedOrder: ["a"])
        #expect(try totals(["a"]) == each([2, 3, 2, 2]))
        // b carries a1 too (the same id: one entry) and one more of its own.
        try store.commit([pull("b", [item("a1", day: 1, title: "swift one"), item("b1", day: 4, title: "swift four")])], feedOrder: ["a", "b"])
        #expect(try totals(["a", "b"]) == each([3, 4, 3, 2]))
        #expect(try totals(["b"]) == each([2, 2, 2, 0]))
        try store.delete(feeds: ["a"])
        #expect(try totals(["a", "b"]) == each([2, 2, 2, 0]))
    }

    @Test("pages are staged invisibly, a dead process's pull resumes, and finishing reveals it at once", arguments: StoreEngine.allCases)
    func stagingAndResume(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        try store.commitPull(pull("a", [item("old", day: 1)]))
        let dead = PullOwner(pid: 2_000_000_000, start: 1)
        guard case .fresh(let ticket) = try store.beginPull(
            feed: "a", source: "test.items", fingerprint: "fp", restart: false, owner: dead, config: nil)
        else { Issue.record("expected a fresh pull"); return }
        let resume = ResumePoint(
            nextPage: 2, urls: [URL(string: "https://api.example.com/items?page=2")!], knownCount: false,
            head: ResumePoint.Head(etag: "\"p1\"", lastModified: nil))
        try store.stagePage(AcceptedPage(number: 1, items: [item("n1", day: 5)], resume: resume), ticket: ticket)
        // Staged items are invisible, but held (where a resumed walk's head check stops).
        #expect(try store.stream(feeds: ["a"], sources: nil, page: 1, perPage: 10).entries.map(\.item.id) == ["old"])
        #expect(try store.heldItemIDs(for: "a") == ["old", "n1"])
        #expect(try store.storedDigests(for: "a").digests.keys.sorted() == ["old"])
        #expect(try store.feedSummaries().first?.stagedCount == 1)
        #expect(try store.feedSummaries().first?.resumesAtPage == 2)
        // The owner is dead: this process resumes after page 1.
        guard case .resume(let next, let point, let storedPages) = try store.beginPull(
            feed: "a", source: "test.items", fingerprint: "fp", restart: false, owner: .current, config: nil)
        else { Issue.record("expected a resumed pull"); return }
        #expect(point.nextPage == 2 && storedPages == 1)
        #expect(point.head?.etag == "\"p1\"", "page 1's validators travel with the resume point")
        #expect(next.startedPull == ticket.startedPull)
        try store.stagePage(AcceptedPage(number: 2, items: [item("n2", day: 6)]), ticket: next)
        // The first holder lost its claim.
        #expect(throws: StoreError.self) {
            try store.stagePage(AcceptedPage(number: 3, items: [item("late", day: 7)]), ticket: ticket)
        }
        var done = pull("a", [])
        done.itemCount = 2
        let summary = try store.finishPull(done, ticket: next, keepResume: false)
        #expect(summary.missing == 1)
        #expect(try store.stream(feeds: ["a"], sources: nil, page: 1, perPage: 10).entries.map(\.item.id) == ["n2", "n1", "old"])
        #expect(try store.checkpoint(feed: "a") == nil)
    }

    @Test("a pull that staged nothing (page 1 unchanged, or failed at once) is recorded and releases its claim; a new feed's first claim creates it", arguments: StoreEngine.allCases)
    func pullThatStagedNothing(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        // A feed the store has never seen: its first claim creates its row, owned by the configuration.
        guard case .fresh(let first) = try store.beginPull(
            feed: "new", source: "test.items", fingerprint: "fp", restart: false, owner: .current, config: "/etc/feeds.yaml")
        else { Issue.record("expected a fresh pull"); return }
        #expect(first.pull == 1 && first.startedPull == 1)
        #expect(try store.feedNames() == ["new"])
        #expect(try store.feedSummaries().first?.config == "/etc/feeds.yaml")
        try store.stagePage(AcceptedPage(number: 1, items: [item("1", day: 1)]), ticket: first)
        try store.finishPull(pull("new", []), ticket: first, keepResume: false)
        #expect(try store.feedSummaries().first?.itemCount == 1)

        // Page 1 answered 304: nothing staged, nothing to reveal; the row records the request.
        guard case .fresh(let unchanged) = try store.beginPull(
            feed: "new", source: "test.items", fingerprint: "fp", restart: false, owner: .current, config: nil)
        else { Issue.record("expected a fresh pull"); return }
        #expect(unchanged.pull == 2)
        var notModified = FeedPull(feed: "new", source: "test.items", items: [], complete: false, stats: PullStats(pages: 0, requests: 1))
        notModified.itemCount = 0
        try store.finishPull(notModified, ticket: unchanged, keepResume: false)
        var summary = try #require(try store.feedSummaries().first)
        #expect(summary.itemCount == 1 && summary.lastError == nil && summary.lastRequests == 1 && summary.lastPages == 0)
        #expect(summary.config == "/etc/feeds.yaml", "a claim without a configuration keeps the owner")
        #expect(try store.checkpoint(feed: "new") == nil)

        // Failed before any page: the error is recorded, the item kept, the claim released.
        guard case .fresh(let failing) = try store.beginPull(
            feed: "new", source: "test.items", fingerprint: "fp", restart: false, owner: .current, config: nil)
        else { Issue.record("expected a fresh pull"); return }
        #expect(failing.pull == 3)
        let failed = FeedPull(
            feed: "new", source: "test.items", items: [], complete: false, stats: PullStats(pages: 0, requests: 1),
            error: "HTTP 404")
        try store.finishPull(failed, ticket: failing, keepResume: false)
        summary = try #require(try store.feedSummaries().first)
        #expect(summary.lastError == "HTTP 404" && summary.itemCount == 1)
        #expect(try store.checkpoint(feed: "new") == nil)
        // The next claim is fresh again, numbered after the three recorded pulls.
        guard case .fresh(let next) = try store.beginPull(
            feed: "new", source: "test.items", fingerprint: "fp", restart: false, owner: .current, config: nil)
        else { Issue.record("expected a fresh pull"); return }
        #expect(next.pull == 4)
    }

    @Test("a feed claimed by a live process is busy for another", arguments: StoreEngine.allCases)
    func liveClaimIsBusy(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        let parent = getppid()
        let live = PullOwner(pid: parent, start: PullOwner.startTime(of: parent) ?? 0)
        guard case .fresh = try store.beginPull(
            feed: "a", source: "test.items", fingerprint: "fp", restart: false, owner: live, config: nil)
        else { Issue.record("expected a fresh pull"); return }
        guard case .busy(let holder) = try store.beginPull(
            feed: "a", source: "test.items", fingerprint: "fp", restart: false, owner: .current, config: nil)
        else { Issue.record("expected busy"); return }
        #expect(holder == live)
    }

    @Test("a cursor keeps its place while newer items arrive, and reads the same on both engines", arguments: StoreEngine.allCases)
    func cursorStability(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        try store.commit(
            [
                pull("a", (1...6).map { (n: Int) in item("a\(n)", day: n) } + [item("undated-a")]),
                pull("b", (1...6).map { (n: Int) in item("b\(n)", day: n) } + [item("shared-b", url: "https://x/1", day: 3)]),
                pull("c", [item("shared-c", url: "https://x/1", day: 3), item("undated-c")]),
            ], feedOrder: ["a", "b", "c"])
        let feeds = ["a", "b", "c"]
        let (before, cursors) = try walk(store, feeds: feeds, limit: 4)
        // 16 rows; shared-b and shared-c (one URL) are one entry listing both feeds.
        #expect(before.count == 15)
        #expect(shapes(before).contains("b/shared-b b,c") || shapes(before).contains("c/shared-c b,c"))
        // Newer items arrive: what follows each cursor stays the same.
        try store.commit([pull("a", (1...9).map { (n: Int) in item("a\(n)", day: n) } + [item("undated-a")])], feedOrder: feeds)
        for (index, token) in cursors.enumerated() {
            let after = try store.stream(feeds: feeds, sources: nil, after: try StreamCursor(token), limit: 100)
            #expect(shapes(after.entries) == shapes(Array(before[(4 * (index + 1))...])))
        }
        // The same data on the other engine walks to the same entries and the same tokens.
        let other = try await (engine == .sqlite ? StoreEngine.postgres : .sqlite).open()
        defer { other.cleanup() }
        defer { try? other.store.close() }
        try other.store.commit(
            [
                pull("a", (1...6).map { (n: Int) in item("a\(n)", day: n) } + [item("undated-a")]),
                pull("b", (1...6).map { (n: Int) in item("b\(n)", day: n) } + [item("shared-b", url: "https://x/1", day: 3)]),
                pull("c", [item("shared-c", url: "https://x/1", day: 3), item("undated-c")]),
            ], feedOrder: feeds)
        let (otherEntries, otherCursors) = try walk(other.store, feeds: feeds, limit: 4)
        #expect(shapes(otherEntries) == shapes(before))
        #expect(otherCursors == cursors)
    }

    @Test("delete and prune remove exactly the feeds named, with their items", arguments: StoreEngine.allCases)
    func deleteAndPrune(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        try store.commit(
            [pull("a", [item("1", day: 1)]), pull("b", [item("2", day: 2), item("3", day: 3)]), pull("c", [item("4", day: 4)])],
            feedOrder: ["a", "b", "c"])
        try store.assignOwner("/configs/one.yaml", feeds: ["a", "b"])
        #expect(try store.feedSummaries().map { $0.config ?? "-" } == ["/configs/one.yaml", "/configs/one.yaml", "-"])
        let deleted = try store.delete(feeds: ["b", "missing"])
        #expect(deleted.feeds == 1 && deleted.items == 2)
        let pruned = try store.prune(keeping: ["a"])
        #expect(pruned.feeds == 1 && pruned.items == 1)
        #expect(try store.feedNames() == ["a"])
    }

    @Test("a staged page's validators are remembered when its pull ends, never before; a page without items still moves the resume point", arguments: StoreEngine.allCases)
    func stagedValidators(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        guard case .fresh(let ticket) = try store.beginPull(
            feed: "a", source: "test.items", fingerprint: "fp", restart: false, owner: .current, config: nil)
        else { Issue.record("expected a fresh pull"); return }
        let key = "https://api.example.com/items?page=1"
        var headers = HTTPHeaders()
        headers.add("ETag", "\"p1\"")
        let page1 = AcceptedPage(
            number: 1, items: [item("1", day: 1), item("2", day: 2)],
            cacheable: CachedResponse(key: key, etag: "\"p1\"", lastModified: nil, headers: headers, body: Data()),
            resume: ResumePoint(nextPage: 2, urls: [URL(string: "https://api.example.com/items?page=2")!], knownCount: false))
        try store.stagePage(page1, ticket: ticket)
        #expect(try store.cachedResponse(for: key) == nil, "a staged validator is not sent before its pull ends")
        #expect(try store.feedSummaries().first?.resumesAtPage == 2)
        #expect(try store.feedSummaries().first?.stagedCount == 2)
        let page2 = AcceptedPage(
            number: 2, items: [],
            resume: ResumePoint(nextPage: 3, urls: [URL(string: "https://api.example.com/items?page=3")!], knownCount: false))
        try store.stagePage(page2, ticket: ticket)
        #expect(try store.feedSummaries().first?.resumesAtPage == 3)
        var done = pull("a", [])
        done.itemCount = 2
        try store.finishPull(done, ticket: ticket, keepResume: false)
        let remembered = try #require(try store.cachedResponse(for: key))
        #expect(remembered.etag == "\"p1\"" && remembered.feed == "a")
        let rebuilt = try store.rebuildPage(try #require(remembered.page), feed: "a")
        #expect(rebuilt?.items.map(\.id) == ["1", "2"])
    }

    @Test("a validator is remembered with its feed's commit and a stored page is rebuilt from items", arguments: StoreEngine.allCases)
    func httpCache(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        var headers = HTTPHeaders()
        headers.add("ETag", "\"v1\"")
        headers.add("Link", "<https://api.example.com/items?page=2>; rel=\"next\"")
        let entry = HTTPCacheEntry(url: "https://api.example.com/items", status: 200, headers: headers, body: Data("[1]".utf8))
        try store.commitPull(pull("a", [item("1", day: 1), item("2", day: 2)], cache: [entry]))
        let cached = try #require(try store.cachedResponse(for: "https://api.example.com/items"))
        #expect(cached.etag == "\"v1\"" && cached.body == Data("[1]".utf8) && cached.feed == "a")
        #expect(cached.headers.fields.map(\.name) == ["ETag", "Link"])
        let rebuilt = try store.rebuildPage(StoredPageSummary(AcceptedPage(number: 1, items: [item("2"), item("1")])), feed: "a")
        #expect(rebuilt?.items.map(\.id) == ["2", "1"])
        #expect(try store.firstSeen([("a", "1"), ("a", "nope")]).mapValues(\.count) == ["a": 1])
    }

    @Test("a pull's start reads the same through a snapshot of many feeds as one read at a time; each snapshot entry answers once", arguments: StoreEngine.allCases)
    func pullMemorySnapshot(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let store = opened.store
        defer { try? store.close() }
        func entry(_ url: String, etag: String) -> HTTPCacheEntry {
            var headers = HTTPHeaders()
            headers.add("ETag", etag)
            return HTTPCacheEntry(url: url, status: 200, headers: headers, body: Data(etag.utf8))
        }
        let pages = (1...9).map { "https://api.example.com/big?page=\($0)" }
        try store.commitPull(pull("a", [item("1", day: 1)], cache: [entry("https://api.example.com/a", etag: "\"a1\"")]))
        try store.commitPull(pull("big", [item("2", day: 2)], cache: pages.map { entry($0, etag: "\"big\"") }))
        try store.commitPull(pull("failed", [item("3", day: 3)], cache: [entry("https://api.example.com/failed", etag: "\"f\"")]))
        try store.recordFailure(feed: "failed", source: "test.items", error: "HTTP 500", stats: PullStats(requests: 1))
        let feeds = ["a", "big", "failed", "other-source", "new"]
        try store.commitPull(pull("other-source", [item("4", day: 4)], source: "test.other"))
        let sources = Dictionary(uniqueKeysWithValues: feeds.map { ($0, "test.items") })
        let keys = ["https://api.example.com/a", "https://api.example.com/failed", "https://api.example.com/none"] + pages

        let snapshot = try store.pullMemorySnapshot(feeds: feeds)
        #expect((snapshot != nil) == (engine == .postgres), "PostgreSQL reads a batch's start at once; SQLite reads in process")
        let plain = StorePullMemory(store: store, sources: sources)
        var batched = plain
        batched.snapshot = snapshot
        for feed in feeds {
            #expect(batched.baseline(for: feed) == plain.baseline(for: feed), "baseline of \(feed)")
        }
        #expect(plain.baseline(for: "a") != nil && plain.baseline(for: "failed") == nil && plain.baseline(for: "new") == nil)
        #expect(plain.baseline(for: "other-source") == nil)
        for key in keys {
            let expected = plain.cachedResponse(for: key)
            let got = batched.cachedResponse(for: key)
            #expect(got?.etag == expected?.etag && got?.body == expected?.body && got?.key == expected?.key, "\(key)")
        }
        if let snapshot {
            // Every entry above was answered once; a feed of more than 8 pages was left to its own reads.
            #expect(snapshot.takeState(of: "a") == nil && snapshot.takeCachedResponse(for: "https://api.example.com/a") == nil)
            let fresh = try #require(try store.pullMemorySnapshot(feeds: feeds))
            #expect(fresh.takeState(of: "new") == .some(nil))
            #expect(fresh.takeCachedResponse(for: pages[0]) == nil)
            // What a pull commits after the snapshot is read from the store after the first answer.
            try store.commitPull(pull("a", [item("1", day: 1)], cache: [entry("https://api.example.com/a", etag: "\"a2\"")]))
            var later = plain
            later.snapshot = fresh
            #expect(later.cachedResponse(for: "https://api.example.com/a")?.etag == "\"a1\"")
            #expect(later.cachedResponse(for: "https://api.example.com/a")?.etag == "\"a2\"")
        }
    }

    @Test("six stores opening one unmigrated database at once all succeed and find every migration once", arguments: StoreEngine.allCases)
    func concurrentOpen(engine: StoreEngine) async throws {
        // What one store opened alone records: every migration, once.
        let reference = try await engine.open()
        let expected = try reference.store.schemaVersions()
        try reference.store.close()
        reference.cleanup()
        #expect(!expected.isEmpty)
        // Three rounds, each on a location nothing has migrated: the opens race to migrate it.
        for round in 1...3 {
            let fresh = try await engine.unopened()
            defer { fresh.cleanup() }
            let open = fresh.open
            let versions = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        let store = try open()
                        defer { try? store.close() }
                        return try store.schemaVersions()
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(versions.count == 6)
            for found in versions {
                #expect(found == expected, "round \(round): a store found \(found), one opened alone \(expected)")
            }
        }
    }
}
