import FeedCore
import FeedaggTesting
import Foundation
import Testing

@testable import FeedStore

@Suite("The maintained stream order equals the computed stream")
struct StreamOrderEquivalenceTests {
    static let feeds = [("alpha", "github.repos"), ("beta", "github.members"), ("gamma", "github.repos"), ("delta", "photos.500px")]

    /// Builds a random store: several rounds of pulls (one-shot commits with and without placement,
    /// staged pulls, failed pulls), items dated and undated with many equal dates, URLs and ids shared
    /// within and across feeds, items changing their date or URL between rounds.
    static func randomStore(seed: UInt64, at path: String) throws -> FeedStore {
        var random = SplitMix(state: seed)
        let clock = TestClock()
        let store = try FeedStore.open(path: path, now: clock.read)
        let declared = feeds.map(\.0)
        // id → (url, day) of the version each feed last served.
        var served: [String: [String: (url: String?, day: Int?)]] = [:]
        for round in 0..<Int.random(in: 2...5, using: &random) {
            clock.advance(by: 3600)
            var pulls: [FeedPull] = []
            for (feed, source) in feeds where Int.random(in: 0..<4, using: &random) > 0 {
                var items: [FeedItem] = []
                var seen = Set<String>()
                for _ in 0..<Int.random(in: 0...25, using: &random) {
                    // A small id pool: the same id recurs across feeds and rounds.
                    let id = "i\(Int.random(in: 0..<60, using: &random))"
                    guard seen.insert(id).inserted else { continue }
                    var version = served[feed]?[id] ?? (url: nil, day: nil)
                    if served[feed]?[id] == nil || Int.random(in: 0..<5, using: &random) == 0 {
                        let urlRoll = Int.random(in: 0..<10, using: &random)
                        version.url =
                            urlRoll < 3 ? nil
                            : urlRoll < 5 ? "https://h.test/shared/\(Int.random(in: 0..<15, using: &random))"
                            : "https://h.test/\(feed)/\(id)"
                        version.day = Int.random(in: 0..<10, using: &random) < 3 ? nil : Int.random(in: 0..<8, using: &random)
                    }
                    served[feed, default: [:]][id] = version
                    items.append(
                        FeedItem(
                            id: id, title: "\(feed) \(id) r\(round)", url: version.url,
                            updated: version.day.map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0) * 86_400) },
                            raw: Data(#"{"id":"\#(id)"}"#.utf8)))
                }
                let failed = Int.random(in: 0..<8, using: &random) == 0
                let pull = FeedPull(
                    feed: feed, source: source, items: items, complete: !failed,
                    stats: PullStats(pages: 1, requests: 1), error: failed ? "HTTP 500" : nil)
                if Int.random(in: 0..<3, using: &random) == 0 {
                    // Page by page: items staged, revealed by finishPull.
                    guard case .fresh(let ticket) = try store.beginPull(feed: feed, source: source, fingerprint: "fp", restart: true)
                    else { continue }
                    let half = items.count / 2
                    try store.stagePage(AcceptedPage(number: 1, items: Array(items[..<half])), ticket: ticket)
                    try store.stagePage(AcceptedPage(number: 2, items: Array(items[half...])), ticket: ticket)
                    try store.finishPull(pull, ticket: ticket, keepResume: false)
                } else {
                    pulls.append(pull)
                }
            }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: try store.commit(pulls.shuffled(using: &random), feedOrder: declared)
            case 1: for pull in pulls { try store.commitPull(pull) }  // undated items left unplaced
            default:
                for pull in pulls { try store.commitPull(pull) }
                try store.placeUndatedItems(feedOrder: declared.shuffled(using: &random))
            }
        }
        // A pull left staged (interrupted): its new items must stay invisible to both reads.
        if case .fresh(let ticket) = try store.beginPull(feed: "beta", source: "github.members", fingerprint: "fp", restart: true) {
            try store.stagePage(
                AcceptedPage(number: 1, items: [item("staged-only", url: "https://h.test/shared/1", day: 3)]),
                ticket: ticket)
        }
        return store
    }

    /// The listings a read can ask for: every feed, another order, a subset, a source filter.
    static let listings: [(feeds: [String], sources: [String]?)] = [
        (["alpha", "beta", "gamma", "delta"], nil),
        (["delta", "gamma", "beta", "alpha"], nil),
        (["gamma", "alpha"], nil),
        (["alpha", "beta", "gamma", "delta"], ["github.repos", "photos.500px"]),
        (["beta", "unknown", "beta"], nil),
    ]

    static func shapes(_ page: StoredStreamPage) -> [EntryShape] { page.entries.map(EntryShape.init) }

    @Test("random stores: every page and every cursor step gives the computed stream's items, order, totals and cursors",
        arguments: 1...24)
    func equivalence(seed: Int) throws {
        let dir = try TemporaryFolder("stream-order")
        defer { dir.remove() }
        let store = try Self.randomStore(seed: UInt64(seed), at: dir.path("s.sqlite"))
        defer { try? store.close() }
        for listing in Self.listings {
            let context = "seed \(seed), feeds \(listing.feeds), sources \(listing.sources ?? [])"
            let everything = try store.computedStream(feeds: listing.feeds, sources: listing.sources, page: 1, perPage: 10_000)
            // Cursor by cursor, at several page sizes.
            for limit in [1, 3, 7, 50] {
                var cursor: StreamCursor?
                var steps = 0
                var walked: [EntryShape] = []
                repeat {
                    let maintained = try store.stream(feeds: listing.feeds, sources: listing.sources, after: cursor, limit: limit)
                    let computed = try store.computedStream(
                        feeds: listing.feeds, sources: listing.sources, after: cursor, limit: limit)
                    #expect(Self.shapes(maintained) == Self.shapes(computed), "\(context), limit \(limit), step \(steps)")
                    #expect(maintained.totalItems == computed.totalItems, "\(context)")
                    #expect(maintained.totalPages == computed.totalPages, "\(context)")
                    #expect(maintained.nextCursor == computed.nextCursor, "\(context), limit \(limit), step \(steps)")
                    walked += Self.shapes(maintained)
                    cursor = try maintained.nextCursor.map(StreamCursor.init)
                    steps += 1
                } while cursor != nil && steps < 1000
                #expect(walked == Self.shapes(everything), "\(context), limit \(limit): the walk covers the stream once")
            }
            // Page by page, including the last page and one past it (read from the end).
            for perPage in [1, 4, 9] {
                let pages = max(1, (everything.totalItems + perPage - 1) / perPage) + 1
                for number in 1...pages {
                    let maintained = try store.stream(
                        feeds: listing.feeds, sources: listing.sources, page: number, perPage: perPage)
                    let computed = try store.computedStream(
                        feeds: listing.feeds, sources: listing.sources, page: number, perPage: perPage)
                    #expect(Self.shapes(maintained) == Self.shapes(computed), "\(context), page \(number)/\(perPage)")
                    #expect(maintained.totalItems == computed.totalItems, "\(context)")
                    #expect(maintained.totalPages == computed.totalPages, "\(context)")
                    #expect(maintained.page == computed.page)
                    #expect(maintained.nextCursor == computed.nextCursor, "\(context), page \(number)/\(perPage)")
                }
            }
        }
    }

    @Test("the random stores hold duplicates across feeds, undated items placed and unplaced, and date ties")
    func storesAreRich() throws {
        let dir = try TemporaryFolder("stream-order")
        defer { dir.remove() }
        var shared = 0
        var unplaced = 0
        var placedUndated = 0
        var ties = 0
        for seed in 1...24 {
            let store = try Self.randomStore(seed: UInt64(seed), at: dir.path("s\(seed).sqlite"))
            shared += Int(try store.strings(sql: "SELECT COUNT(*) FROM item WHERE shared = 1 AND staged = 0")[0]) ?? 0
            unplaced += Int(try store.strings(sql: "SELECT COUNT(*) FROM item WHERE sort_key IS NULL AND staged = 0")[0]) ?? 0
            placedUndated +=
                Int(try store.strings(
                    sql: "SELECT COUNT(*) FROM item WHERE sort_key IS NOT NULL AND published IS NULL AND updated IS NULL")[0]) ?? 0
            ties +=
                Int(try store.strings(
                    sql: "SELECT COUNT(*) FROM (SELECT sort_key FROM item WHERE staged = 0 GROUP BY sort_key HAVING COUNT(*) > 1)")[0])
                ?? 0
            try store.close()
        }
        #expect(shared > 50 && unplaced > 10 && placedUndated > 10 && ties > 20, "\(shared) \(unplaced) \(placedUndated) \(ties)")
    }
}
