import FeedCore
import FeedStorage
import FeedaggTesting
import Foundation
import Testing

/// Two feeds carrying the same items, committed at the same moment by two connections (two
/// workers): neither transaction sees the other's rows, yet the stream must show each item once,
/// listing both feeds. (On PostgreSQL both rows once stayed unshared: the item showed twice.)
@Suite("Items two feeds commit at once are shown once")
struct ConcurrentSharingTests {
    @Test("concurrent one-shot and staged commits of the same URLs mark them shared", arguments: StoreEngine.allCases)
    func concurrentCommits(engine: StoreEngine) async throws {
        let opened = try await engine.open()
        defer { opened.cleanup() }
        let first = opened.store
        defer { try? first.close() }
        let second = try opened.reopen()
        defer { try? second.close() }
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        for round in 0..<12 {
            let feeds = ["a\(round)", "b\(round)"]
            let items = (0..<40).map { n in
                FeedItem(id: "\(n)", title: "item \(n)", url: "https://h.test/\(round)/\(n)", updated: day.addingTimeInterval(Double(n)))
            }
            let staged = round % 2 == 1
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (store, feed) in zip([first, second], feeds) {
                    group.addTask {
                        let pull = FeedPull(
                            feed: feed, source: "test.items", items: items, complete: true,
                            stats: PullStats(pages: 1, requests: 1), error: nil)
                        if staged, case .fresh(let ticket) = try store.beginPull(
                            feed: feed, source: "test.items", fingerprint: "f", restart: true)
                        {
                            try store.stagePage(AcceptedPage(number: 1, items: items), ticket: ticket)
                            try store.finishPull(pull, ticket: ticket, keepResume: false)
                        } else {
                            try store.commitPull(pull)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let page = try first.stream(feeds: feeds, limit: 100)
            #expect(page.totalItems == items.count, "\(engine) round \(round) (staged: \(staged)): total")
            #expect(page.entries.count == items.count, "\(engine) round \(round) (staged: \(staged)): entries")
            #expect(page.entries.allSatisfy { $0.feeds == feeds }, "\(engine) round \(round): every entry lists both feeds")
        }
    }
}
