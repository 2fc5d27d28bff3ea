import DeterministicRandom
import FeedCore
public import FeedStorage
public import Foundation

/// A random store for the stream-order equivalence tests of both engines: several rounds of pulls
/// (one-shot commits with and without placement, staged pulls, failed pulls), items dated and
/// undated with many equal dates, URLs and ids shared within and across feeds, items changing their
/// date or URL between rounds, and a pull left staged at the end. The same seed writes the same
/// commits to any engine.
public enum RandomStreamStore {
    /// The feeds written, with their source types.
    public static let feeds = [
        ("alpha", "github.repos"), ("beta", "github.members"), ("gamma", "github.repos"), ("delta", "photos.500px"),
    ]

    /// The listings a read can ask for: every feed, another order, a subset, a source filter, an
    /// unknown feed and a repeat.
    public static let listings: [(feeds: [String], sources: [String]?)] = [
        (["alpha", "beta", "gamma", "delta"], nil),
        (["delta", "gamma", "beta", "alpha"], nil),
        (["gamma", "alpha"], nil),
        (["alpha", "beta", "gamma", "delta"], ["github.repos", "photos.500px"]),
        (["beta", "unknown", "beta"], nil),
    ]

    /// Writes the store of `seed` into `store`; `advance` moves the store's clock (an hour a round).
    public static func fill(_ store: any StoreDriver, seed: UInt64, advance: (TimeInterval) -> Void) throws {
        var random = SplitMix(state: seed)
        let declared = feeds.map(\.0)
        // id → (url, day) of the version each feed last served.
        var served: [String: [String: (url: String?, day: Int?)]] = [:]
        for round in 0..<Int.random(in: 2...5, using: &random) {
            advance(3600)
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
                    let text = RandomSearchText.fields(using: &random)
                    items.append(
                        item(
                            id, title: "\(feed) \(id) r\(round) \(text.title)", url: version.url, day: version.day,
                            summary: text.summary, author: text.author))
                }
                let failed = Int.random(in: 0..<8, using: &random) == 0
                let pull = FeedPull(
                    feed: feed, source: source, items: items, complete: !failed,
                    stats: PullStats(pages: 1, requests: 1), error: failed ? "HTTP 500" : nil)
                if Int.random(in: 0..<3, using: &random) == 0 {
                    // Page by page: items staged, revealed by finishPull.
                    guard
                        case .fresh(let ticket) = try store.beginPull(
                            feed: feed, source: source, fingerprint: "fp", restart: true)
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
        // A pull left staged (interrupted): its new items must stay invisible to every read.
        if case .fresh(let ticket) = try store.beginPull(
            feed: "beta", source: "github.members", fingerprint: "fp", restart: true)
        {
            try store.stagePage(
                AcceptedPage(number: 1, items: [item("staged-only", title: "staged", url: "https://h.test/shared/1", day: 3)]),
                ticket: ticket)
        }
    }

    /// An item dated `day` days after 2023-11-14 (undated when `nil`), with raw JSON.
    static func item(
        _ id: String, title: String, url: String?, day: Int?, summary: String? = nil, author: String? = nil
    ) -> FeedItem {
        FeedItem(
            id: id, title: title, summary: summary, url: url, author: author.map { FeedAuthor(name: $0) },
            updated: day.map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0) * 86_400) },
            raw: Data(#"{"id":"\#(id)"}"#.utf8))
    }
}
