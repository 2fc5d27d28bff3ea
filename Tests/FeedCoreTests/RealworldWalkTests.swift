import CurlHTTP
import FeedCore
import FeedReplay
import FeedaggTesting
import Foundation
import Synchronization
import Testing

// Multi-page Link walks recorded from the real GitHub API by other projects' test suites
// (../shared/realworld), replayed through a ReplayServer, the libcurl client and the engine with
// a small test-only source. The expected pages and items come from the recordings, followed by
// their own next links; the engine fans out pages 2…N when page 1's `last` allows it, and must
// still deliver exactly the recorded items, in page order.

/// One recorded walk.
struct RecordedWalkCase: Sendable, CustomTestStringConvertible {
    /// File under ../shared/realworld.
    var file: String
    /// Key path of each element's id.
    var idPath: [String] = ["id"]
    /// What the realworld README documents for the walk, checked against the recording.
    var documentedPages: Int
    var documentedItems: Int

    var testDescription: String { file }
}

@Suite(
    "Real-world Link walks through ReplayServer + CurlClient + FeedEngine",
    .enabled(if: RepositoryPaths.hasRealworld, RealworldRecording.missing))
struct RealworldWalkTests {
    static let walks: [RecordedWalkCase] = [
        // 14 pages, 333 items; the last page's rel="last" points back to page 1 and it has no next.
        RecordedWalkCase(
            file: "pygithub-replay/PaginatedList.testIteration.json", documentedPages: 14, documentedItems: 333),
        // 5 pages, 13 items; the next URL switches from /repos/… to /repositories/1000/….
        RecordedWalkCase(
            file: "octokit-fixtures/paginate-issues.normalized.json", documentedPages: 5, documentedItems: 13),
        // github3.py: a 2-page walk of gist comments.
        RecordedWalkCase(file: "github3py-cassettes/Gist_comments.json", documentedPages: 2, documentedItems: 131),
        // github3.py: 5 pages of stargazers after a 301 for the renamed repository; ids are the users'.
        RecordedWalkCase(
            file: "github3py-cassettes/Repository_stargazers.json", idPath: ["user", "id"], documentedPages: 5,
            documentedItems: 484),
    ]

    /// Pulls the walk of `recording` with `pageConcurrency`; returns the result and the URLs requested.
    static func replay(
        _ exchanges: [FixtureExchange], firstTarget: String, idPath: [String], pageConcurrency: Int
    ) async throws -> (result: FeedResult, requested: [String], served: Int) {
        let replay = try await ReplayServer.start(exchanges: exchanges)
        // Timeouts far above any stall of a loaded machine: a timed-out page would be retried, and
        // the walk's request count is what this test checks.
        let client = CurlClient(
            configuration: CurlClient.Configuration(
                totalTimeout: .seconds(300), firstByteTimeout: .seconds(300), lowSpeedTime: .seconds(300)))
        let requested = RequestedURLs()
        let events = PullEvents(requestFinished: { requested.append($0.url) })
        let engine = FeedEngine(transport: client, pageConcurrency: pageConcurrency, events: events)
        let first = try #require(URL(string: replay.baseURL.absoluteString + firstTarget))
        let context = FeedContext(name: "recorded", baseURL: replay.baseURL, pageSize: 30)
        let feed = Feed(source: RecordedListSource(firstPageURL: first, idPath: idPath), context: context)
        let result = await engine.pull(feed)
        client.shutdown()
        let served = replay.requestsServed
        try await replay.shutdown()
        return (result, requested.values, served)
    }

    @Test("a recorded walk replays to exactly its items, in page order", arguments: walks, [1, 8])
    func walk(_ walk: RecordedWalkCase, pageConcurrency: Int) async throws {
        let exchanges = try RealworldRecording.exchanges(walk.file)
        let recorded = try RecordedWalk(exchanges)
        let expected = try recorded.ids(idPath: walk.idPath)
        // The recording is what the realworld README says it is.
        #expect(recorded.pages.count == walk.documentedPages)
        #expect(expected.count == walk.documentedItems)
        #expect(Set(expected).count == expected.count, "the recording itself repeats ids")

        let (result, requested, served) = try await Self.replay(
            exchanges, firstTarget: recorded.firstTarget, idPath: walk.idPath, pageConcurrency: pageConcurrency)

        #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
        #expect(result.items.count == expected.count)
        #expect(result.items.map(\.id) == expected, "items differ from the recording's, or are out of page order")
        #expect(result.pages == recorded.pages.count)
        #expect(result.requests == recorded.pages.count)
        #expect(served == recorded.pages.count, "the replay server answered \(served) requests")
        // Every request was one of the recorded pages, and none was made twice.
        let targets = requested.compactMap { URLComponents(string: $0) }.map { components in
            components.percentEncodedPath + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        }
        #expect(Set(targets).count == targets.count, "a page was requested twice: \(targets)")
        for target in targets {
            #expect(
                recorded.pages.contains { RecordedWalk.sameTarget($0.target, target) },
                "requested \(target), which is not a page of the recorded walk")
        }
    }

    @Test("PyGithub's last page: rel=\"last\" points back to page 1, no next; the walk ends there without a cycle error")
    func lastPagePointingBack() async throws {
        let exchanges = try RealworldRecording.exchanges("pygithub-replay/PaginatedList.testIteration.json")
        let recorded = try RecordedWalk(exchanges)
        let lastPage = try #require(recorded.pages.last)
        let links = LinkHeader.parse(RecordedWalk.values("Link", lastPage.responseHeaders))
        #expect(LinkHeader.first("next", in: links) == nil)
        let last = try #require(LinkHeader.first("last", in: links)?.resolved(against: URL(string: lastPage.url)))
        #expect(QueryEditor.value(of: "page", in: last) == "1", "rel=last of the final page: \(last)")

        for concurrency in [1, 8] {
            let (result, _, _) = try await Self.replay(
                exchanges, firstTarget: recorded.firstTarget, idPath: ["id"], pageConcurrency: concurrency)
            #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
            #expect(result.pages == 14)
            #expect(result.items.count == 333)
        }
    }

    @Test("octokit's walk follows the next URL from /repos/… to /repositories/:id/…")
    func nextURLSwitchesPath() async throws {
        let exchanges = try RealworldRecording.exchanges("octokit-fixtures/paginate-issues.normalized.json")
        let recorded = try RecordedWalk(exchanges)
        #expect(recorded.firstTarget.hasPrefix("/repos/octokit-fixture-org/paginate-issues/issues"))
        #expect(recorded.pages.dropFirst().allSatisfy { $0.target.hasPrefix("/repositories/1000/issues") })

        for concurrency in [1, 8] {
            let (result, requested, _) = try await Self.replay(
                exchanges, firstTarget: recorded.firstTarget, idPath: ["id"], pageConcurrency: concurrency)
            #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
            #expect(result.items.count == 13)
            let paths = requested.compactMap { URLComponents(string: $0)?.path }
            #expect(paths.first == "/repos/octokit-fixture-org/paginate-issues/issues")
            #expect(paths.filter { $0 == "/repositories/1000/issues" }.count == 4, "requested: \(requested)")
        }
    }
}

/// URLs reported by the engine's `requestFinished` event, from any task.
final class RequestedURLs: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ url: String) { storage.withLock { $0.append(url) } }
    var values: [String] { storage.withLock { $0 } }
}
