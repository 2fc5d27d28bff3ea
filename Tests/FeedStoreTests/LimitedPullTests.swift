import FeedCore
import FeedaggTesting
import Foundation
import Testing

@testable import FeedStore

@Suite("Store: limited pulls (pull --limit) never stand for a complete one")
struct LimitedPullTests {
    /// A limited pull of `items`: not complete, no cache entries.
    func limited(_ items: [FeedItem], error: String? = nil) -> FeedPull {
        var pull = FeedPull(
            feed: "f", source: "github.repos", items: items, complete: false, stats: PullStats(pages: 1, requests: 1),
            error: error)
        pull.limited = true
        return pull
    }

    @Test("a limited pull upserts its items but moves neither last_success_at nor the page count, and leaves no baseline until a full pull succeeds")
    func limitedPullLeavesNoBaseline() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let clock = TestClock()
        let store = try FeedStore.open(path: dir.path("s.sqlite"), now: clock.read)
        defer { try? store.close() }

        // Never pulled, then only a limited pull: no baseline (its items may be the newest page only).
        try store.commitPull(limited([item("1", day: 3), item("2", day: 2)]))
        #expect(try store.baseline(for: "f", source: "github.repos") == nil)
        var summary = try #require(try store.feedSummaries().first)
        #expect(summary.lastSuccessAt == nil)
        #expect(summary.lastAttemptAt == clock.now)
        #expect(summary.lastError == nil)
        #expect(summary.itemCount == 2)

        // A complete pull: the baseline exists, with its page count.
        clock.advance(by: 60)
        var full = pull("f", "github.repos", [item("1", day: 3), item("2", day: 2), item("3", day: 1)])
        full.stats = PullStats(pages: 3, requests: 3)
        full.pageCount = 3
        try store.commitPull(full)
        let fullAt = clock.now
        #expect(try store.baseline(for: "f", source: "github.repos")?.pageCount == 3)

        // A limited pull after it: items updated, but the baseline is gone and the success time and
        // page count stay those of the complete pull.
        clock.advance(by: 60)
        try store.commitPull(limited([item("0", day: 4), item("1", day: 3, title: "renamed")]))
        #expect(try store.baseline(for: "f", source: "github.repos") == nil)
        summary = try #require(try store.feedSummaries().first)
        #expect(summary.lastSuccessAt == fullAt)
        #expect(summary.lastAttemptAt == clock.now)
        #expect(summary.pageCount == 3)
        #expect(summary.itemCount == 4)
        #expect(summary.missingCount == 0, "a limited pull never marks items missing")
        #expect(try allEntries(store, feeds: ["f"]).first { $0.item.id == "1" }?.item.title == "renamed")

        // The next complete pull brings the baseline back.
        clock.advance(by: 60)
        try store.commitPull(pull("f", "github.repos", [item("0", day: 4), item("1", day: 3), item("2", day: 2)]))
        #expect(try store.baseline(for: "f", source: "github.repos") != nil)
    }

    @Test("a failed limited pull records its error like any failed pull")
    func failedLimitedPull() throws {
        let dir = try TemporaryFolder("feedstore-tests")
        defer { dir.remove() }
        let store = try FeedStore.open(path: dir.path("s.sqlite"))
        defer { try? store.close() }
        try store.commitPull(pull("f", "github.repos", [item("1", day: 1)]))
        try store.commitPull(limited([item("2", day: 2)], error: "feed 'f': GET … (page 2): HTTP 500"))
        let summary = try #require(try store.feedSummaries().first)
        #expect(summary.lastError == "feed 'f': GET … (page 2): HTTP 500")
        #expect(summary.itemCount == 2)
        #expect(try store.baseline(for: "f", source: "github.repos") == nil)
    }
}
