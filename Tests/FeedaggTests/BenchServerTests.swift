import FeedCore
import FeedaggKit
import FeedaggTesting
import Foundation
import Testing

// The product path (feeds.yaml → Aggregator → CurlClient → engine) against the bench server
// (../shared/bench/ghserver.py), a loopback imitation of GitHub REST pagination and 500px, at
// realistic sizes. The server's own /__stats counters check what was sent on the wire.

@Suite("Bench server: large walks, fan-out, per-host limit, failures", .enabled(if: BenchServer.isAvailable, benchServerMissing))
struct BenchServerTests {
    /// Writes `yaml` to a temporary feeds.yaml and pulls it through the aggregator (quietly).
    static func pull(_ yaml: String) async throws -> PullReport {
        try await pullQuietly(yaml)
    }

    static func result(_ report: PullReport, _ feed: String) throws -> FeedResult {
        try #require(report.results.first { $0.feed == feed }, "no result for feed \(feed)")
    }

    @Test("github.repos of an org with 1,000 repos at per_page=100: 1,000 items in 10 requests, within the per-host limit")
    func thousandRepositories() async throws {
        let perHost = 4
        try await withBenchServer(.init(orgs: [.init("big", repos: 1_000)], latencyMilliseconds: 5)) { server in
            let report = try await Self.pull(
                """
                settings:
                  max_connections_per_host: \(perHost)
                  page_concurrency: 8
                feeds:
                  - name: big-repos
                    source: github.repos
                    org: big
                    per_page: 100
                    base_url: \(server.baseURL.absoluteString)
                """)
            let result = try Self.result(report, "big-repos")
            #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
            #expect(result.items.count == 1_000)
            #expect(Set(result.items.map(\.id)).count == 1_000, "item ids are not distinct")
            #expect(result.requests == 10)
            #expect(result.pages == 10)
            #expect(report.exitStatus == .success)

            let stats = try await server.stats()
            let repoRoutes = (stats.byRoute["/orgs/{org}/repos"] ?? 0) + (stats.byRoute["/organizations/{id}/repos"] ?? 0)
            #expect(stats.byRoute["/orgs/{org}/repos"] == 1, "page 1 goes to /orgs/big/repos: \(stats.byRoute)")
            #expect(repoRoutes == 10, "requests by route: \(stats.byRoute)")
            #expect(stats.requests == 10)
            #expect(stats.byStatus == ["200": 10])
            #expect(stats.maxInFlight <= perHost, "max_in_flight \(stats.maxInFlight) exceeds max_connections_per_host")
        }
    }

    @Test("photos.500px with 2,000 photos at rpp=100: 2,000 distinct items in 20 requests")
    func twoThousandPhotos() async throws {
        try await withBenchServer(.init(photos: 2_000)) { server in
            let report = try await Self.pull(
                """
                feeds:
                  - name: editors
                    source: photos.500px
                    feature: editors
                    per_page: 100
                    base_url: \(server.baseURL.absoluteString)
                """)
            let result = try Self.result(report, "editors")
            #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
            #expect(result.items.count == 2_000)
            #expect(Set(result.items.map(\.id)).count == 2_000, "item ids are not distinct")
            #expect(result.requests == 20)
            let stats = try await server.stats()
            #expect(stats.byRoute["/v1/photos"] == 20, "requests by route: \(stats.byRoute)")
            #expect(stats.requests == 20)
        }
    }

    /// A feed of each pagination style, and how many items it has on the server.
    static let fanOutFeeds: [(name: String, yaml: String, count: Int)] = [
        ("repos", "source: github.repos\n    org: big\n    per_page: 100", 1_000),
        ("photos", "source: photos.500px\n    feature: editors\n    per_page: 100", 2_000),
    ]

    @Test("fan-out yields the same items in the same order as a sequential walk", arguments: [0, 1])
    func fanOutMatchesSequentialWalk(_ index: Int) async throws {
        let feed = Self.fanOutFeeds[index]
        try await withBenchServer(.init(orgs: [.init("big", repos: 1_000)], photos: 2_000, latencyMilliseconds: 2)) {
            server in
            var sequences: [Int: [String]] = [:]
            for concurrency in [1, 8] {
                try await server.reset()
                let report = try await Self.pull(
                    """
                    settings:
                      page_concurrency: \(concurrency)
                    feeds:
                      - name: \(feed.name)
                        \(feed.yaml)
                        base_url: \(server.baseURL.absoluteString)
                    """)
                let result = try Self.result(report, feed.name)
                #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
                #expect(result.items.count == feed.count, "page_concurrency \(concurrency)")
                sequences[concurrency] = result.items.map(\.id)
                let stats = try await server.stats()
                #expect(stats.requests == result.requests, "page_concurrency \(concurrency): \(stats.byPath)")
            }
            let sequential = try #require(sequences[1])
            let concurrent = try #require(sequences[8])
            #expect(Set(sequential).count == feed.count)
            #expect(concurrent == sequential, "fan-out changed the items or their order")
        }
    }

    @Test("an org that does not exist fails its feed with HTTP 404 naming feed and URL; the other feeds complete")
    func missingOrganization() async throws {
        try await withBenchServer(.init(orgs: [.init("real", repos: 120, members: 12)], photos: 150)) { server in
            let base = server.baseURL.absoluteString
            let report = try await Self.pull(
                """
                feeds:
                  - name: real-repos
                    source: github.repos
                    org: real
                    per_page: 50
                    base_url: \(base)
                  - name: ghost-repos
                    source: github.repos
                    org: ghost-org
                    base_url: \(base)
                  - name: real-members
                    source: github.members
                    org: real
                    base_url: \(base)
                  - name: shots
                    source: photos.500px
                    per_page: 100
                    base_url: \(base)
                """)
            #expect(report.exitStatus == .partialFailure)
            let ghost = try Self.result(report, "ghost-repos")
            let error = try #require(ghost.error, "the feed of a missing org should fail")
            guard case .httpStatus(404, _) = error.reason else {
                Issue.record("expected HTTP 404, got \(error.reason)")
                return
            }
            #expect(error.feed == "ghost-repos")
            #expect(error.url == "\(base)/orgs/ghost-org/repos?per_page=30")
            #expect(error.page == 1)
            let line = String(describing: error)
            #expect(line.contains("ghost-repos") && line.contains("\(base)/orgs/ghost-org/repos") && line.contains("HTTP 404"))
            #expect(ghost.items.isEmpty)

            for (name, count) in [("real-repos", 120), ("real-members", 12), ("shots", 150)] {
                let result = try Self.result(report, name)
                #expect(result.error == nil, "\(name): \(result.error.map(String.init(describing:)) ?? "")")
                #expect(result.items.count == count, "\(name)")
            }
            #expect(report.page.totalItems == 120 + 12 + 150)
            let stats = try await server.stats()
            #expect(stats.byRoute["404"] == 1, "requests by route: \(stats.byRoute)")
        }
    }
}
