import CurlHTTP
import FeedCore
import FeedStore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

/// The real store's ``StorePullMemory``, counting what the engine asks it for and when (relative to
/// the requests the scripted API received), so a test can see which reads a pull made.
final class CountingMemory: PullMemory {
    let store: StorePullMemory
    let api: VersionedAPI
    struct Counts: Equatable {
        var baselines = 0
        var digests = 0
        var newest = 0
        /// Requests the API had received when the digests were read.
        var requestsBeforeDigests: [Int] = []
    }
    let counts = Mutex(Counts())

    init(_ store: StorePullMemory, api: VersionedAPI) {
        self.store = store
        self.api = api
    }

    func key(for url: URL) -> String { store.key(for: url) }
    func cachedResponse(for key: String) -> CachedResponse? { store.cachedResponse(for: key) }
    func knownPageCount(for feed: String) -> Int? { store.knownPageCount(for: feed) }
    func baseline(for feed: String) -> IncrementalBaseline? {
        counts.withLock { $0.baselines += 1 }
        return store.baseline(for: feed)
    }
    func storedDigests(for feed: String) -> StoredDigests? {
        let sent = api.requests.count
        counts.withLock {
            $0.digests += 1
            $0.requestsBeforeDigests.append(sent)
        }
        return store.storedDigests(for: feed)
    }
    func newestUpdate(for feed: String) -> Date? {
        counts.withLock { $0.newest += 1 }
        return store.newestUpdate(for: feed)
    }
}

@Suite("Store: the incremental baseline is read lazily")
struct LazyBaselineTests {
    /// A pull of `feed` through the engine and the real libcurl client, with `memory`.
    func enginePull(_ feed: Feed, memory: CountingMemory, refresh: RefreshMode = .incremental) async -> FeedResult {
        let client = CurlClient()
        defer { client.shutdown() }
        return await FeedEngine(transport: client, pageConcurrency: 4, memory: memory, refresh: refresh).pull(feed)
    }

    @Test(
        "an unchanged newest-first feed costs one 304 and no read of the stored digests; a changed page 1 reads them once, after its answer, and the walk still stops at stored items"
    )
    func digestsOnlyAfterAChangedPage() async throws {
        let (api, server, folder) = try await scene(["/orgs/acme/repos": VersionedAPI.records(1...45)])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write(
            "feeds.yaml", feedsYAML(reposFeed("acme", org: "acme", base: server.baseURL, extra: ["sort: updated"])))
        let first = try await pull(config, db: db)
        #expect(first.results[0].pages == 5 && first.results[0].complete)

        let keys = ["org": "acme", "sort": "updated", "per_page": "10", "base_url": server.baseURL]
        let feed = try SourceRegistry.builtIn.makeFeed(
            name: "acme", sourceType: "github.repos",
            parameters: FeedSourceConformance.feedParameters(keys, feedName: "acme", sourceType: "github.repos"))
        #expect(feed.source.ordering == .newestFirst)
        let store = try FeedStore.open(path: db.path)
        let memory = CountingMemory(StorePullMemory(store: store, sources: ["acme": "github.repos"]), api: api)

        // Unchanged: page 1 answers 304; neither the digests nor the newest date are read.
        api.resetLog()
        let unchanged = await enginePull(feed, memory: memory)
        #expect(unchanged.error == nil)
        #expect(unchanged.unchanged)
        #expect(api.requests.count == 1)
        #expect(memory.counts.withLock { $0 } == CountingMemory.Counts(baselines: 1))

        // A new repository at the top: page 1 changes, the digests are read once, after page 1's
        // answer, and page 2 (all stored unchanged) ends the walk.
        api.edit("/orgs/acme/repos") { records in
            records.insert(VersionedAPI.Record(id: 101, name: "new-101", updated: 1_800_000_000), at: 0)
        }
        api.resetLog()
        let changed = await enginePull(feed, memory: memory)
        #expect(changed.error == nil)
        #expect(changed.stoppedAtStoredPage == 2)
        #expect(api.requests.count == 2)
        #expect(
            memory.counts.withLock { $0 }
                == CountingMemory.Counts(baselines: 2, digests: 1, newest: 0, requestsBeforeDigests: [1]))

        // A full refresh reads none of it.
        api.resetLog()
        let full = await enginePull(feed, memory: memory, refresh: .full)
        #expect(full.complete && api.requests.count == 5)
        #expect(memory.counts.withLock { $0 }.digests == 1)
        try store.close()
        try await server.shutdown()
    }
}
