import FeedCore
import FeedStore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// 200 pulls of 10 feeds against a server that fails 20% of requests at random (seeded): no crash,
// no duplicate, no lost item, memory stable.

/// Resident memory of this process in bytes (Linux `/proc/self/statm`).
private func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

@Suite("Soak: 200 pulls of 10 feeds, 20% of requests failing")
struct SoakTests {
    @Test("no crash, no duplicate, no lost item, memory stable")
    func soak() async throws {
        let api = VersionedAPI()
        for org in 1...10 { api.set("/orgs/org\(org)/repos", VersionedAPI.records((org * 1_000 + 1)...(org * 1_000 + 25))) }
        let random = Mutex(SplitMix(state: 20_261_121))
        let failing = Mutex(true)
        let base = Mutex("")
        let server = try await LoopbackHTTPServer.start { request in
            let fail = failing.withLock { $0 } && random.withLock { generator in Double.random(in: 0..<1, using: &generator) < 0.2 }
            if fail {
                switch random.withLock({ Int.random(in: 0..<4, using: &$0) }) {
                case 0: return LoopbackResponse(status: 500, text: #"{"message":"boom"}"#)
                case 1: return LoopbackResponse(status: 503, text: "unavailable")
                case 2: return LoopbackResponse(status: 200, text: "[]", fault: .resetAfterHead)
                default: return LoopbackResponse(status: 200, text: "[{\"id\": 1, \"na")  // truncated JSON
                }
            }
            return api.handle(request, base: base.withLock { $0 })
        }
        base.withLock { $0 = server.baseURL }
        let folder = try TemporaryFolder("feedagg-soak")
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("soak.sqlite")
        let feeds = (1...10).map { org in
            """
              - name: org\(org)
                source: github.repos
                org: org\(org)
                per_page: 10
                base_url: \(server.baseURL)
            """
        }
        let config = try folder.write("feeds.yaml", "settings:\n  retries: 0\nfeeds:\n" + feeds.joined(separator: "\n") + "\n")
        var settings = PullSettings(configPath: config.path)
        settings.quiet = true
        settings.store = .file(db.path)
        let aggregator = Aggregator(console: .discardingErrors, environment: [:])  // 600 failure lines otherwise

        var stored: [String: Set<String>] = [:]
        var failures = 0
        var residentAt20 = 0
        for pull in 1...200 {
            // Every 25 pulls, two feeds get a new repository (so pulls keep changing the store).
            if pull % 25 == 0 {
                for org in [pull / 25 % 10 + 1, (pull / 25 + 5) % 10 + 1] {
                    api.edit("/orgs/org\(org)/repos") { records in
                        records.insert(VersionedAPI.Record(id: org * 1_000 + 100 + pull, name: "new-\(org)-\(pull)", updated: 1_800_000_000 + pull), at: 0)
                    }
                }
            }
            let report = try await aggregator.pull(settings)
            failures += report.results.filter { !$0.succeeded }.count
            var byFeed: [String: [String]] = [:]
            var settingsAll = ShowSettings(configPath: config.path)
            settingsAll.store = .file(db.path)
            settingsAll.perPage = 10_000
            for entry in try aggregator.show(settingsAll).entries { byFeed[entry.feed, default: []].append(entry.item.id) }
            for (feed, ids) in byFeed {
                #expect(Set(ids).count == ids.count, "pull \(pull): duplicates in \(feed)")
                let before = stored[feed] ?? []
                #expect(before.isSubset(of: Set(ids)), "pull \(pull): \(feed) lost \(before.subtracting(ids))")
                stored[feed] = Set(ids)
            }
            if pull == 20 { residentAt20 = residentBytes() }
        }
        let residentAt200 = residentBytes()
        #expect(failures > 100, "the server should have failed many feed pulls (\(failures))")

        // A clean pull brings every feed to exactly the server's items.
        failing.withLock { $0 = false }
        var full = settings
        full.refresh = .full
        let clean = try await aggregator.pull(full)
        #expect(clean.exitStatus == .success)
        let store = try FeedStore.open(path: db.path)
        #expect(try store.integrityCheck())
        for summary in try store.feedSummaries() {
            let expected = api.state.withLock { $0.collections["/orgs/\(summary.name)/repos"]?.count ?? -1 }
            #expect(summary.itemCount == expected, "\(summary.name)")
        }
        try store.close()
        try await server.shutdown()
        // Memory: what 180 more pulls added, well under what one leak per pull would.
        #expect(residentAt200 - residentAt20 < 40 << 20, "RSS grew \((residentAt200 - residentAt20) >> 20) MB from pull 20 to 200")
        print("soak: 200 pulls × 10 feeds, \(failures) feed pulls failed; RSS \(residentAt20 >> 20) MB at pull 20, \(residentAt200 >> 20) MB at pull 200")
    }
}
