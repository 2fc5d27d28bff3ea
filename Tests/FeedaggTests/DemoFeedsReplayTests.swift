import CurlHTTP
import FeedCore
import FeedReplay
import FeedaggKit
import FeedaggTesting
import Foundation
import Testing

// The demo feeds.yaml through the real loader (Aggregator.load with a base-URL override), each
// feed replayed from Fixtures/<feed>/ by its own ReplayServer through the libcurl client. This
// complements SourceTests/FixtureReplayTests (which cannot see the YAML loader) by checking that
// the loader builds the same feeds the fixtures were recorded from.

@Suite("Demo feeds.yaml through Aggregator.load, replayed per feed")
struct DemoFeedsReplayTests {
    static let feedNames: [String] = {
        let path = RepositoryPaths.root.appendingPathComponent("feeds.yaml").path
        return (try? Aggregator(environment: [:]).load(configPath: path).1.map(\.name)) ?? []
    }()

    @Test("the demo file declares five feeds, each with recorded fixtures")
    func demoFeedsHaveFixtures() {
        #expect(Self.feedNames.count == 5, "feeds.yaml did not load: \(Self.feedNames)")
        for name in Self.feedNames {
            let directory = RepositoryPaths.fixtures.appendingPathComponent(name).path
            #expect(FileManager.default.fileExists(atPath: directory), "no Fixtures/\(name)/")
        }
    }

    @Test("a demo feed loaded by Aggregator replays to its recorded item count", arguments: feedNames)
    func replay(_ name: String) async throws {
        let directory = RepositoryPaths.fixtures.appendingPathComponent(name)
        let exchanges = try FixtureStore.load(directory: directory.path)
        let recordedItems = try exchanges.reduce(0) { total, exchange in
            let body = try JSONSerialization.jsonObject(with: exchange.body)
            let elements = (body as? [Any]) ?? ((body as? [String: Any])?["photos"] as? [Any])
            return total + (try #require(elements, "\(exchange.url): not a list or a photos envelope")).count
        }

        let replay = try await ReplayServer.start(directory: directory.path)
        // Timeouts far above any stall of a loaded machine: a timed-out page would be retried,
        // and the request count is what this test checks.
        let client = CurlClient(
            configuration: CurlClient.Configuration(
                totalTimeout: .seconds(300), firstByteTimeout: .seconds(300), lowSpeedTime: .seconds(300)))
        let result: FeedResult
        do {
            let (_, feeds) = try Aggregator(environment: [:]).load(
                configPath: RepositoryPaths.root.appendingPathComponent("feeds.yaml").path,
                baseURLOverride: replay.baseURL)
            let feed = try #require(feeds.first { $0.name == name })
            #expect(feed.context.baseURL.host == "127.0.0.1", "the override did not apply: \(feed.context.baseURL)")
            result = await FeedEngine(transport: client).pull(feed)
        } catch {
            client.shutdown()
            try await replay.shutdown()
            throw error
        }
        client.shutdown()
        let served = replay.requestsServed
        try await replay.shutdown()

        #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
        #expect(result.items.count == recordedItems)
        #expect(Set(result.items.map(\.id)).count == recordedItems, "duplicate ids")
        #expect(result.requests == exchanges.count)
        #expect(result.pages == exchanges.count)
        #expect(served == exchanges.count)
    }
}
