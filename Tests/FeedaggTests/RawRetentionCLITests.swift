import FeedCore
import FeedStore
import FeedaggKit
import FeedaggTesting
import Foundation
import Testing

@Suite("keep_raw: what a pull stores of each item's JSON")
struct RawRetentionCLITests {
    @Test("by default a pull stores no JSON; pages answered 304 are rebuilt from the store and count as unchanged")
    func noRawByDefault() async throws {
        let (api, server, folder) = try await scene(["/orgs/acme/repos": VersionedAPI.records(1...25)])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write("feeds.yaml", feedsYAML(reposFeed("acme", org: "acme", base: server.baseURL)))

        let first = try await pull(config, db: db)
        #expect(first.commits["acme"] == CommitSummary(inserted: 25))
        #expect(first.results.first { $0.feed == "acme" }?.items.allSatisfy { $0.raw != nil } == true, "the API sent JSON")
        #expect(try showAll(config, db: db).count == 25)
        // What a program reading the store would find: the items, without their JSON.
        do {
            let fetched = first.results.first { $0.feed == "acme" }?.items ?? []
            let store = try FeedStore.open(path: db.path)
            defer { try? store.close() }
            let stored = try store.rebuildPage(StoredPageSummary(AcceptedPage(number: 1, items: fetched)), feed: "acme")
            #expect(stored?.items.count == 25 && stored?.items.allSatisfy { $0.raw == nil } == true)
        }

        // Page 1 changes (one renamed repo), page 3 gains one; page 2 answers 304 and is rebuilt
        // from the stored items, which carry no JSON: they are unchanged, not rewritten.
        api.edit("/orgs/acme/repos") { records in
            records[3].name = "renamed-4"
            records[3].updated += 30
            records.append(VersionedAPI.Record(id: 26, name: "repo-26", updated: 1_600_000_000))
        }
        let second = try await pull(config, db: db, refresh: .full)
        #expect(second.exitStatus == .success)
        #expect(second.commits["acme"] == CommitSummary(inserted: 1, updated: 1, unchanged: 24))
        #expect(api.requests.contains { $0.header("If-None-Match") != nil })
        let entries = try showAll(config, db: db)
        #expect(entries.count == 26 && entries.allSatisfy { $0.item.raw == nil })
        #expect(entries.contains { $0.item.title == "renamed-4" })
        try await server.shutdown()
    }

    @Test("with keep_raw: true the store keeps each item's JSON as the API sent it")
    func keepRaw() async throws {
        let (_, server, folder) = try await scene(["/orgs/acme/repos": VersionedAPI.records(1...12)])
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite")
        let config = try folder.write(
            "feeds.yaml", "settings:\n  keep_raw: true\n" + feedsYAML(reposFeed("acme", org: "acme", base: server.baseURL)))
        let report = try await pull(config, db: db)
        #expect(report.commits["acme"] == CommitSummary(inserted: 12))
        let fetched = report.results.first { $0.feed == "acme" }?.items ?? []
        let sent = Dictionary(uniqueKeysWithValues: fetched.map { ($0.id, $0.raw) })
        // No page shows it (StoredStreamPage): the stream reads no item's JSON.
        let entries = try showAll(config, db: db)
        #expect(entries.count == 12 && entries.allSatisfy { $0.item.raw == nil })
        // A program reading the store finds it, as a page answered 304 is rebuilt from it.
        let store = try FeedStore.open(path: db.path)
        defer { try? store.close() }
        let stored = try #require(try store.rebuildPage(StoredPageSummary(AcceptedPage(number: 1, items: fetched)), feed: "acme"))
        #expect(stored.items.count == 12)
        for item in stored.items {
            #expect(item.raw != nil && item.raw == sent[item.id] ?? nil, "\(item.id)")
        }
        try await server.shutdown()
    }
}
