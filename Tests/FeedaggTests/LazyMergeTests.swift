import CurlHTTP
import FeedCore
import FeedStore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// The lazy merge (`LazyUnifiedStream`, `pull --limit N`) against real loopback servers through
// the real libcurl client: what it fetches, what it yields, when it prefetches, how it stops.

// MARK: - A paged API of several feeds

/// `/feeds/{name}?per_page=M&page=N`: JSON arrays of records, Link-paginated (`next`, `last`),
/// recording every request. Tests hold a page behind a gate or make one fail.
final class PagedFeedsAPI: Sendable {
    struct Record: Sendable, Hashable {
        var id: String
        var url: String?
        /// Epoch seconds of `updated`; `nil` for an undated record.
        var updated: Int?
    }

    struct State {
        var feeds: [String: [Record]] = [:]
        /// `name#page` → status to answer instead of the page.
        var failing: [String: Int] = [:]
        /// `name#page` → a gate the response waits for.
        var gates: [String: Gate] = [:]
        /// `name#page` of every request, in arrival order.
        var requests: [String] = []
    }

    let state = Mutex(State())
    let base = Mutex("")

    init(_ feeds: [String: [Record]]) {
        state.withLock { $0.feeds = feeds }
    }

    var requests: [String] { state.withLock { $0.requests } }

    func requests(of feed: String) -> [Int] {
        requests.filter { $0.hasPrefix(feed + "#") }.compactMap { Int($0.split(separator: "#")[1]) }
    }

    func fail(_ feed: String, page: Int, status: Int) { state.withLock { $0.failing["\(feed)#\(page)"] = status } }

    /// Holds page `page` of `feed` until the returned gate opens.
    func hold(_ feed: String, page: Int) -> Gate {
        let gate = Gate()
        state.withLock { $0.gates["\(feed)#\(page)"] = gate }
        return gate
    }

    func handle(_ request: LoopbackRequest) async -> LoopbackResponse {
        let name = request.path.split(separator: "/").last.map(String.init) ?? ""
        let query = VersionedAPI.query(request)
        let page = query["page"].flatMap(Int.init) ?? 1
        let perPage = query["per_page"].flatMap(Int.init) ?? 10
        let key = "\(name)#\(page)"
        let (records, failure, gate) = state.withLock { state in
            state.requests.append(key)
            return (state.feeds[name], state.failing[key], state.gates[key])
        }
        if let gate { await gate.wait() }
        guard let records, request.path.hasPrefix("/feeds/") else {
            return LoopbackResponse(status: 404, text: #"{"message":"Not Found"}"#)
        }
        if let failure { return LoopbackResponse(status: failure, text: #"{"message":"page \#(page) is broken"}"#) }
        let pages = max(1, (records.count + perPage - 1) / perPage)
        let objects = records.dropFirst((page - 1) * perPage).prefix(perPage).map { record in
            let url = record.url.map { #""\#($0)""# } ?? "null"
            let updated = record.updated.map { #""\#(ISO8601.string(from: Date(timeIntervalSince1970: Double($0))))""# } ?? "null"
            return #"{"id":"\#(record.id)","title":"title \#(record.id)","url":\#(url),"updated":\#(updated)}"#
        }
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        let target = "\(base.withLock { $0 })/feeds/\(name)?per_page=\(perPage)"
        var links: [String] = []
        if page < pages { links.append("<\(target)&page=\(page + 1)>; rel=\"next\"") }
        if pages > 1 { links.append("<\(target)&page=\(pages)>; rel=\"last\"") }
        if !links.isEmpty { headers.append(("Link", links.joined(separator: ", "))) }
        return LoopbackResponse(headers: headers, text: "[" + objects.joined(separator: ",") + "]")
    }

    /// Serves the API on loopback while `body` runs (given the base URL), then shuts the server down.
    func serve<T>(_ body: (String) async throws -> T) async throws -> T {
        try await LoopbackHTTPServer.withServer(handler: { [self] request in await handle(request) }) { server in
            base.withLock { $0 = server.baseURL }
            return try await body(server.baseURL)
        }
    }

    /// A feeds.yaml block for feed `name` of this API (`source: http`).
    static func feed(_ name: String, base: String, perPage: Int, ordered: Bool = true) -> String {
        """
          - name: \(name)
            source: http
            base_url: \(base)
            url: "{+base_url}/feeds/\(name){?per_page}"
            per_page: \(perPage)
            pagination: { style: link }
            items: "$"
            order: \(ordered ? "newest_first" : "unordered")
            fields: { id: "$.id", title: "$.title", url: "$.url", updated: "$.updated" }
        """
    }
}

// MARK: - Helpers

/// Loads `yaml`'s feeds with the built-in registry.
private func loadFeeds(_ yaml: String) throws -> [Feed] {
    let folder = try TemporaryFolder("feedagg-lazy")
    defer { folder.remove() }
    let config = try folder.write("feeds.yaml", yaml)
    return try Aggregator(console: Console(), environment: [:]).load(configPath: config.path).1
}

/// Runs `body` with an engine on a fresh libcurl client, shut down afterwards.
private func withEngine<T>(retries: Int = 0, _ body: (FeedEngine) async throws -> T) async throws -> T {
    let client = CurlClient()
    defer { client.shutdown() }
    let engine = FeedEngine(transport: client, retry: RetryPolicy(maxAttempts: retries + 1))
    return try await body(engine)
}

/// The merge of every feed fetched in full (the reference order).
private func fullMerge(_ feeds: [Feed], engine: FeedEngine) async -> [StreamEntry] {
    let results = await engine.pull(feeds)
    return UnifiedStream.merge(results.map { UnifiedStream.Input(feed: $0.feed, source: $0.source, items: $0.items) })
}

/// `id feed [feeds]` of each entry, for comparisons that print well.
private func describe(_ entries: [StreamEntry]) -> [String] {
    entries.map { "\($0.item.id) \($0.feed) [\($0.feeds.joined(separator: ","))]" }
}

/// Where two entry lists first differ, with a few entries of context; `nil` when they are equal.
private func firstDifference(_ actual: [StreamEntry], _ expected: [StreamEntry]) -> String? {
    let (a, b) = (describe(actual), describe(expected))
    guard a != b else { return nil }
    let index = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    let window = max(0, index - 2)..<(index + 3)
    return "entry \(index) of \(a.count) (expected \(b.count)): got \(Array(a[window.clamped(to: 0..<a.count)])), "
        + "expected \(Array(b[window.clamped(to: 0..<b.count)]))"
}

/// Reads at most `count` entries (all when `nil`), then finishes the iterator.
private func read(
    _ stream: LazyUnifiedStream, count: Int? = nil
) async -> ([StreamEntry], [LazyUnifiedStream.FeedReport]) {
    var iterator = stream.makeAsyncIterator()
    var entries: [StreamEntry] = []
    while count.map({ entries.count < $0 }) ?? true, let entry = await iterator.next() { entries.append(entry) }
    return (entries, await iterator.finish())
}

/// Waits up to 180 s for `condition` (a loaded machine is slow; no test asserts a duration).
private func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(180)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// Records for `feeds` date-ordered newest first, with ties inside and across feeds and items
/// shared by several feeds (same URL and date): a seeded data set.
private func interleavedRecords(seed: UInt64, feeds: [String], perFeed: Int) -> [String: [PagedFeedsAPI.Record]] {
    var random = SplitMix(state: seed)
    let shared = (0..<15).map { n in
        PagedFeedsAPI.Record(
            id: "shared\(n)", url: "https://example.com/shared/\(n)", updated: 1_700_000_000 - Int.random(in: 0..<400, using: &random) * 60)
    }
    var out: [String: [PagedFeedsAPI.Record]] = [:]
    for name in feeds {
        var records = (0..<perFeed).map { n in
            // Dates on a coarse grid (400 minutes): ties are frequent, within a feed and across feeds.
            PagedFeedsAPI.Record(
                id: "\(name)-\(n)", url: "https://example.com/\(name)/\(n)",
                updated: 1_700_000_000 - Int.random(in: 0..<400, using: &random) * 60)
        }
        records += shared.filter { _ in Bool.random(using: &random) }
        // Newest first; ties in a seeded order, not by id.
        records = records.map { ($0, UInt64.random(in: 0...UInt64.max, using: &random)) }
            .sorted { $0.0.updated! != $1.0.updated! ? $0.0.updated! > $1.0.updated! : $0.1 < $1.1 }.map(\.0)
        out[name] = records
    }
    return out
}

// MARK: - Tests

@Suite("Lazy merge: LazyUnifiedStream and pull --limit")
struct LazyMergeTests {
    @Test(
        "yields exactly UnifiedStream.merge's order over the fully fetched feeds (interleaved dates, ties, duplicates across feeds, an unordered feed)",
        arguments: [0, 3, 40])
    func sameOrderAsFullMerge(prefetchDistance: Int) async throws {
        let names = ["a", "b", "c", "d"]
        var records = interleavedRecords(seed: 7, feeds: names, perFeed: 60)
        // An unordered feed: records in a shuffled order, one of them the newest of all, one a
        // copy of an item of an earlier-declared feed.
        var random = SplitMix(state: 99)
        var loose = (0..<23).map { n in
            PagedFeedsAPI.Record(
                id: "u-\(n)", url: "https://example.com/u/\(n)",
                updated: 1_700_000_000 - Int.random(in: 0..<400, using: &random) * 60)
        }
        loose.append(PagedFeedsAPI.Record(id: "u-newest", url: "https://example.com/u/newest", updated: 1_800_000_000))
        loose.append(try #require(records["c"]?[5]))
        loose.shuffle(using: &random)
        records["u"] = loose
        let api = PagedFeedsAPI(records)
        try await api.serve { base in
            let feeds = try loadFeeds(
                "feeds:\n"
                    + (names.map { PagedFeedsAPI.feed($0, base: base, perPage: 7) }
                        + [PagedFeedsAPI.feed("u", base: base, perPage: 5, ordered: false)]).joined(separator: "\n") + "\n")
            try await withEngine { engine in
                let expected = await fullMerge(feeds, engine: engine)
                #expect(expected.contains { $0.feeds.count > 1 }, "the data set has duplicates across feeds")
                #expect(expected.first?.item.id == "u:u-newest")
                let stream = LazyUnifiedStream(feeds: feeds, engine: engine, prefetchDistance: prefetchDistance)
                let (entries, reports) = await read(stream)
                #expect(firstDifference(entries, expected) == nil)
                #expect(entries.map(\.item) == expected.map(\.item))
                #expect(reports.allSatisfy { $0.result.complete && $0.result.error == nil })
                #expect(reports.map(\.dateOrdered) == [true, true, true, true, false])
            }
        }
    }

    @Test("the first N entries equal the full merge's first N, fetching only the pages they need")
    func prefixNeedsFewPages() async throws {
        let names = ["a", "b", "c"]
        let api = PagedFeedsAPI(interleavedRecords(seed: 11, feeds: names, perFeed: 200))
        try await api.serve { base in
            let feeds = try loadFeeds(
                "feeds:\n" + names.map { PagedFeedsAPI.feed($0, base: base, perPage: 20) }.joined(separator: "\n") + "\n")
            try await withEngine { engine in
                let stream = LazyUnifiedStream(feeds: feeds, engine: engine, prefetchDistance: 0, limit: 25)
                let (entries, reports) = await read(stream)
                let lazyRequests = api.requests
                let expected = await fullMerge(feeds, engine: engine)
                #expect(firstDifference(entries, Array(expected.prefix(25))) == nil)
                // 25 entries of 3 × 200 items, 20 per page: at most two pages per feed are needed.
                #expect(lazyRequests.count <= 6, "\(lazyRequests)")
                #expect(reports.allSatisfy { $0.stoppedEarly })
                #expect(reports.allSatisfy { ($0.announcedPages ?? 0) >= 10 })
            }
        }
    }

    @Test("undated items come after every dated entry, each feed in wire order; the dated ones keep the merge's order")
    func undatedItemsComeLast() async throws {
        var records = interleavedRecords(seed: 5, feeds: ["a", "b"], perFeed: 30)
        records["m"] = (0..<12).map { PagedFeedsAPI.Record(id: "m-\($0)", url: "https://example.com/people/\($0)", updated: nil) }
        let api = PagedFeedsAPI(records)
        try await api.serve { base in
            let feeds = try loadFeeds(
                "feeds:\n"
                    + [
                        PagedFeedsAPI.feed("a", base: base, perPage: 8),
                        PagedFeedsAPI.feed("m", base: base, perPage: 5, ordered: false),
                        PagedFeedsAPI.feed("b", base: base, perPage: 8),
                    ].joined(separator: "\n") + "\n")
            try await withEngine { engine in
                let expected = await fullMerge(feeds, engine: engine)
                let (entries, _) = await read(LazyUnifiedStream(feeds: feeds, engine: engine))
                let dated = expected.filter { $0.item.sortDate != nil }
                let undated = expected.filter { $0.item.sortDate == nil }
                #expect(firstDifference(entries, dated + undated) == nil)
                #expect(entries.suffix(12).map(\.item.id) == (0..<12).map { "m:m-\($0)" })
            }
        }
    }

    @Test("prefetch: the next page is requested once the consumer is within prefetchDistance entries of the fetched end, before it gets there")
    func prefetchStartsBeforeTheEnd() async throws {
        let records = (0..<30).map {
            PagedFeedsAPI.Record(id: "r\($0)", url: "https://example.com/r/\($0)", updated: 1_700_000_000 - $0 * 60)
        }
        let api = PagedFeedsAPI(["a": records])
        let held = api.hold("a", page: 2)
        try await api.serve { base in
            defer { held.open() }
            let feeds = try loadFeeds("feeds:\n" + PagedFeedsAPI.feed("a", base: base, perPage: 10) + "\n")
            try await withEngine { engine in
                var iterator = LazyUnifiedStream(feeds: feeds, engine: engine, prefetchDistance: 3).makeAsyncIterator()
                var entries: [StreamEntry] = []
                for _ in 0..<6 { if let entry = await iterator.next() { entries.append(entry) } }
                // 4 entries left before page 2 is needed: more than 3, so it is not asked for yet
                // (the request would be started inside the sixth next()).
                #expect(api.requests(of: "a") == [1], "after 6 of 10 entries")
                if let entry = await iterator.next() { entries.append(entry) }
                // 3 left: page 2 is requested now, while the consumer pauses with 3 entries to read.
                #expect(await eventually { api.requests(of: "a") == [1, 2] }, "page 2 requested: \(api.requests)")
                #expect(entries.count == 7)
                held.open()
                while let entry = await iterator.next() { entries.append(entry) }
                let reports = await iterator.finish()
                #expect(entries.map(\.item.id) == (0..<30).map { "a:r\($0)" })
                #expect(api.requests(of: "a") == [1, 2, 3])
                #expect(reports[0].result.pages == 3 && reports[0].result.requests == 3 && reports[0].result.complete)
            }
        }
    }

    @Test("a feed that is not date-ordered is fetched completely before the first entry, even for one entry")
    func unorderedFeedIsFetchedCompletely() async throws {
        var records = interleavedRecords(seed: 3, feeds: ["a"], perFeed: 100)
        var loose = (0..<40).map {
            PagedFeedsAPI.Record(id: "x\($0)", url: "https://example.com/x/\($0)", updated: 1_600_000_000 + $0)
        }
        loose[39].updated = 1_900_000_000  // the newest item of all, on the unordered feed's last page
        records["x"] = loose
        let api = PagedFeedsAPI(records)
        try await api.serve { base in
            let feeds = try loadFeeds(
                "feeds:\n" + PagedFeedsAPI.feed("a", base: base, perPage: 10) + "\n"
                    + PagedFeedsAPI.feed("x", base: base, perPage: 10, ordered: false) + "\n")
            try await withEngine { engine in
                let stream = LazyUnifiedStream(feeds: feeds, engine: engine, prefetchDistance: 0, limit: 3)
                let (entries, reports) = await read(stream)
                #expect(entries.first?.item.id == "x:x39")
                #expect(api.requests(of: "x").sorted() == [1, 2, 3, 4], "every page of the unordered feed")
                #expect(api.requests(of: "a") == [1], "one page of the date-ordered feed")
                #expect(reports[1].dateOrdered == false && reports[1].result.complete)
                #expect(reports[0].stoppedEarly)
            }
        }
    }

    @Test("a feed failing mid-merge: the others still yield everything, its fetched items are merged, the failure names the feed and the URL")
    func failingFeedMidMerge() async throws {
        let names = ["a", "b", "c"]
        let records = interleavedRecords(seed: 21, feeds: names, perFeed: 30)
        let api = PagedFeedsAPI(records)
        api.fail("b", page: 2, status: 404)
        try await api.serve { base in
            let feeds = try loadFeeds(
                "feeds:\n" + names.map { PagedFeedsAPI.feed($0, base: base, perPage: 10) }.joined(separator: "\n") + "\n")
            try await withEngine { engine in
                let (entries, reports) = await read(LazyUnifiedStream(feeds: feeds, engine: engine, prefetchDistance: 2))
                #expect(reports[0].result.items.count == records["a"]?.count)
                #expect(reports[1].result.items.count == 10, "b: page 1 only")
                #expect(reports[2].result.items.count == records["c"]?.count)
                // The reference: the merge of what was fetched (a and c in full, b's first page).
                let inputs = reports.map {
                    UnifiedStream.Input(feed: $0.result.feed, source: $0.result.source, items: $0.result.items)
                }
                #expect(firstDifference(entries, UnifiedStream.merge(inputs)) == nil)
                let error = try #require(reports[1].result.error)
                #expect(error.feed == "b")
                #expect(error.page == 2)
                #expect(error.url == "\(base)/feeds/b?per_page=10&page=2")
                #expect(error.description.hasPrefix("feed 'b': GET \(base)/feeds/b?per_page=10&page=2 (page 2): HTTP 404 Not Found"))
                #expect(reports[0].result.error == nil && reports[2].result.error == nil)
            }
        }
    }

    @Test("a consumer that stops early stops the fetching: finish() cancels the page in flight and nothing more is asked")
    func earlyStopStopsFetching() async throws {
        let records = (0..<500).map { PagedFeedsAPI.Record(id: "r\($0)", url: nil, updated: 1_700_000_000 - $0 * 60) }
        let api = PagedFeedsAPI(["a": records])
        let held = api.hold("a", page: 3)
        try await api.serve { base in
            defer { held.open() }
            let feeds = try loadFeeds("feeds:\n" + PagedFeedsAPI.feed("a", base: base, perPage: 10) + "\n")
            try await withEngine { engine in
                var iterator = LazyUnifiedStream(feeds: feeds, engine: engine, prefetchDistance: 5).makeAsyncIterator()
                var entries: [StreamEntry] = []
                for _ in 0..<15 { if let entry = await iterator.next() { entries.append(entry) } }
                // 5 entries of page 2 left: page 3 is being prefetched (the server holds it).
                #expect(await eventually { api.requests(of: "a") == [1, 2, 3] })
                let reports = await iterator.finish()
                #expect(await iterator.next() == nil, "nothing after finish()")
                #expect(entries.count == 15)
                #expect(reports[0].stoppedEarly && reports[0].result.error == nil, "\(reports[0].result.notes)")
                #expect(reports[0].result.requests == 3)
                #expect(reports[0].result.items.count == 20)
                #expect(api.requests(of: "a") == [1, 2, 3], "no page after the consumer stopped")
            }
        }
    }

    @Test("cancelling the consuming task ends next() at once (the page in flight is cancelled) and stops the fetching")
    func cancellationStopsFetching() async throws {
        let records = (0..<100).map { PagedFeedsAPI.Record(id: "r\($0)", url: nil, updated: 1_700_000_000 - $0 * 60) }
        let api = PagedFeedsAPI(["a": records, "b": records.map { .init(id: "b\($0.id)", url: nil, updated: $0.updated) }])
        let held = api.hold("a", page: 2)
        try await api.serve { base in
            defer { held.open() }
            let feeds = try loadFeeds(
                "feeds:\n" + ["a", "b"].map { PagedFeedsAPI.feed($0, base: base, perPage: 10) }.joined(separator: "\n") + "\n")
            try await withEngine { engine in
                let stream = LazyUnifiedStream(feeds: feeds, engine: engine, prefetchDistance: 0)
                let consumer = Task {
                    var count = 0
                    for await _ in stream { count += 1 }
                    return count
                }
                // The consumer waits for page 2 of `a`, which the server holds.
                #expect(await eventually { api.requests(of: "a") == [1, 2] })
                consumer.cancel()
                let count = await consumer.value
                #expect(count < 200)
                #expect(api.requests(of: "a") == [1, 2])
                #expect(api.requests.count <= 4, "\(api.requests)")
            }
        }
    }

    @Test(
        "pull --limit 20 over five W1 orgs (ghserver data, 1,000 repos each, per_page 100, sort: updated): at most 10 requests, the 20 items of a full pull; the next pull walks every page",
        .enabled(if: BenchServer.isAvailable, benchServerMissing))
    func pullLimitOverW1() async throws {
        let folder = try TemporaryFolder("feedagg-lazy")
        defer { folder.remove() }
        var options = BenchServer.Options(generatedOrgs: 5, reposPerGeneratedOrg: 1_000)
        options.reposSortedByUpdate = true
        let server = try await BenchServer.start(options)
        defer { server.stop() }
        let feeds = (1...5).map { org in
            """
              - name: org\(org)-repos
                source: github.repos
                org: org\(org)
                sort: updated
                base_url: \(server.baseURL.absoluteString)
                per_page: 100
            """
        }
        let config = try folder.write("feeds.yaml", "feeds:\n" + feeds.joined(separator: "\n") + "\n")
        let limitedDB = folder.url.appendingPathComponent("limited.sqlite").path
        let fullDB = folder.url.appendingPathComponent("full.sqlite").path

        let limited = try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", limitedDB, "--limit", "20", "--format", "json"])
        try #require(limited.status == 0, "\(limited.summary)")
        let stats = try await server.stats()
        #expect(stats.requests <= 10, "\(stats.byPath)")
        #expect(stats.requests == 5, "page 1 of each org is enough: \(stats.byPath)")
        for org in 1...5 {
            #expect(
                limited.stderr.contains(
                    "✓ org\(org)-repos (github.repos): 1 page of 10, 1 request, 100 items (100 new, 0 updated)"),
                "\(limited.stderr)")
        }
        #expect(limited.stderr.contains("stopped: the newest 20 are known"))
        let page = try #require(try JSONSerialization.jsonObject(with: limited.standardOutput) as? [String: Any])
        #expect(page["limit"] as? Int == 20)
        let limitedIDs = (page["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(limitedIDs.count == 20)

        try await server.reset()
        let full = try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", fullDB, "--per-page", "20", "--format", "json"])
        try #require(full.status == 0, "\(full.summary)")
        #expect(try await server.stats().requests == 50)
        let fullPage = try #require(try JSONSerialization.jsonObject(with: full.standardOutput) as? [String: Any])
        let fullIDs = (fullPage["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(limitedIDs == fullIDs, "the 20 newest of a full pull")

        // A limited pull is not a complete one: the next pull walks every page (no stop at the
        // stored page 1), stores the 5,000 repositories, and the pull after it has the usual
        // page-1 304 shortcut again.
        try await server.reset()
        let next = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", limitedDB, "-q"])
        try #require(next.status == 0, "\(next.summary)")
        #expect(try await server.stats().requests == 50)
        let total = try {
            let store = try FeedStore.open(path: limitedDB)
            defer { try? store.close() }
            return try store.stream(feeds: (1...5).map { "org\($0)-repos" }, page: 1, perPage: 1).totalItems
        }()
        #expect(total == 5_000)
        try await server.reset()
        let again = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", limitedDB, "-q"])
        try #require(again.status == 0, "\(again.summary)")
        #expect(try await server.stats().byStatus == ["304": 5])
    }

    @Test("pull --limit on the CLI: a feed that is not date-ordered is fetched in full and says so; a failing feed is reported with its URL, exit status 3")
    func cliNotesAndFailures() async throws {
        var records = interleavedRecords(seed: 8, feeds: ["a", "b"], perFeed: 50)
        records["x"] = (0..<25).map { PagedFeedsAPI.Record(id: "x\($0)", url: nil, updated: 1_600_000_000 + $0) }
        let api = PagedFeedsAPI(records)
        api.fail("b", page: 1, status: 410)
        let folder = try TemporaryFolder("feedagg-lazy")
        defer { folder.remove() }
        try await api.serve { base in
            let config = try folder.write(
                "feeds.yaml",
                "feeds:\n" + PagedFeedsAPI.feed("a", base: base, perPage: 10) + "\n"
                    + PagedFeedsAPI.feed("b", base: base, perPage: 10) + "\n"
                    + PagedFeedsAPI.feed("x", base: base, perPage: 10, ordered: false) + "\n")
            let db = folder.url.appendingPathComponent("s.sqlite").path
            let output = try await TestBinary.runFeedagg(
                ["pull", "--config", config.path, "--db", db, "--limit", "5", "--format", "jsonl"])
            #expect(output.status == 3, "\(output.summary)")
            #expect(output.stdout.split(separator: "\n").count == 5)
            #expect(output.stderr.contains("✓ x (http): 3 pages, 3 requests, 25 items (25 new, 0 updated)"), "\(output.stderr)")
            #expect(output.stderr.contains("fetched in full: not date-ordered"))
            #expect(
                output.stderr.contains("✗ feed 'b': GET \(base)/feeds/b?per_page=10 (page 1): HTTP 410 Gone"),
                "\(output.stderr)")
            #expect(api.requests(of: "a") == [1])

            let usage = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db, "--limit", "5", "--full"])
            #expect(usage.status == 2)
            #expect(usage.stderr.contains("--limit reads only the newest pages: it cannot be combined with --full"))
        }
    }
}
