import FeedCore
import FeedStorage
import FeedStore
import DeterministicRandom
import Foundation

#if PostgreSQL
    import PostgresFeedStore
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// `feedagg-store-gen`: writes a large store for the read benchmarks (`Scripts/bench.sh --workloads
/// READ`), through FeedStore's real commit path (`commitPull` per feed, then `placeUndatedItems`),
/// so the maintained order, the shared marks and the counters are exactly what `feedagg pull` writes.
/// `--db postgres://…` writes the same items into an empty PostgreSQL database instead, through
/// `PostgresFeedStore` and the same ``StoreDriver`` calls (`Scripts/bench-serve.py`, READ-SERVE).
///
/// Deterministic for a seed: `--feeds` feeds (`feed000`…) of `--items` items each, dated at random
/// seconds over one year (so some share a second), `--undated` of them without a date,
/// `--duplicates` of them carrying a URL from a pool shared by every feed (duplicates across and
/// within feeds), each with `--raw-bytes` of original JSON.
@main
struct StoreGenerator {
    struct Options {
        var output = ""
        /// A PostgreSQL URL (`--db postgres://…`) instead of `--out FILE`.
        var database = ""
        var feeds = 100
        var items = 10_000
        var seed: UInt64 = 1
        var undated = 0.02
        var duplicates = 0.01
        var rawBytes = 300
    }

    static let usage = """
        usage: feedagg-store-gen (--out FILE | --db postgres://…) [--feeds N] [--items N] [--seed N] [--undated FRACTION]
                                 [--duplicates FRACTION] [--raw-bytes N]
        """

    static func main() {
        do {
            let options = try parse(Array(CommandLine.arguments.dropFirst()))
            try generate(options)
        } catch {
            FileHandle.standardError.write(Data("feedagg-store-gen: \(error)\n\(usage)\n".utf8))
            exit(2)
        }
    }

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var index = 0
        func value(_ name: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(name) needs a value") }
            return arguments[index]
        }
        func number<T: LosslessStringConvertible>(_ name: String) throws -> T {
            let text = try value(name)
            guard let number = T(text) else { throw UsageError(description: "\(name): '\(text)' is not a number") }
            return number
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--out": options.output = try value("--out")
            case "--db": options.database = try value("--db")
            case "--feeds": options.feeds = try number("--feeds")
            case "--items": options.items = try number("--items")
            case "--seed": options.seed = try number("--seed")
            case "--undated": options.undated = try number("--undated")
            case "--duplicates": options.duplicates = try number("--duplicates")
            case "--raw-bytes": options.rawBytes = try number("--raw-bytes")
            case let other: throw UsageError(description: "unknown argument '\(other)'")
            }
            index += 1
        }
        guard options.output.isEmpty != options.database.isEmpty else {
            throw UsageError(description: "give one of --out FILE and --db postgres://…")
        }
        guard options.database.isEmpty || PostgresURL.isPostgres(options.database) else {
            throw UsageError(description: "--db takes a postgres:// URL (a SQLite file is --out FILE)")
        }
        return options
    }

    /// The store the options name, its clock fixed (so a seed always gives the same stamps): a new
    /// SQLite file, or an empty PostgreSQL database.
    static func open(_ options: Options, now: @escaping @Sendable () -> Date) throws -> (any StoreDriver, String) {
        guard !options.database.isEmpty else {
            if FileManager.default.fileExists(atPath: options.output) {
                throw UsageError(description: "\(options.output) exists: remove it first")
            }
            return (try FeedStore.open(path: options.output, now: now), options.output)
        }
        let url = try PostgresURL(options.database, environment: ProcessInfo.processInfo.environment)
        #if PostgreSQL
            let store = try PostgresFeedStore.open(url: url, now: now)
            guard try store.feedNames().isEmpty else {
                try store.close()
                throw UsageError(description: "\(url.redacted) already holds feeds: give an empty database")
            }
            return (store, url.redacted)
        #else
            throw UsageError(description: "\(url.redacted): this feedagg-store-gen was built without the PostgreSQL trait")
        #endif
    }

    /// The topics of the generated titles and summaries.
    static let topics = [
        "swift", "rust", "linux", "server", "database", "compiler", "network", "parser", "kernel", "graphics",
        "audio", "crypto", "editor", "shell", "browser", "cache", "queue", "search", "testing", "build",
    ]

    static func generate(_ options: Options) throws {
        var random = SplitMix(state: options.seed)  // a seed always gives the same store
        let (store, location) = try open(options, now: { Date(timeIntervalSince1970: 1_764_000_000) })
        let start = ContinuousClock.now
        let names = (0..<options.feeds).map { String(format: "feed%03d", $0) }
        let padding = String(repeating: "x", count: max(0, options.rawBytes - 120))
        let yearStart = 1_732_000_000.0
        for (number, feed) in names.enumerated() {
            var items: [FeedItem] = []
            items.reserveCapacity(options.items)
            for index in 0..<options.items {
                let roll = Double(random.next() % 1_000_000) / 1_000_000
                let url =
                    roll < options.duplicates
                    ? "https://gen.test/shared/\(random.next() % 5_000)" : "https://gen.test/\(feed)/\(index)"
                let dated = Double(random.next() % 1_000_000) / 1_000_000 >= options.undated
                let date = dated ? Date(timeIntervalSince1970: yearStart + Double(random.next() % 31_536_000)) : nil
                let serial = number * options.items + index
                let id = "\(serial)"
                // Words for search (issue 28's SEARCH bench), from the serial alone (the random
                // sequence stays the store's): each of 20 topics in 5 % of the titles, so
                // `swift OR rust` matches about 10 %, and `zanzibar` in 1 of 125,000.
                let topic = Self.topics[serial % Self.topics.count]
                let rare = serial % 125_000 == 7 ? " zanzibar" : ""
                items.append(
                    FeedItem(
                        id: id, title: "\(feed) item \(index) \(topic)\(rare)",
                        summary: "generated item \(index) of \(feed), about \(Self.topics[(serial / 20) % Self.topics.count])",
                        url: url,
                        author: FeedAuthor(name: "author\(random.next() % 500)", url: nil, avatarURL: nil), updated: date,
                        raw: Data(#"{"id":\#(id),"full_name":"\#(feed)/item-\#(index)","url":"\#(url)","pad":"\#(padding)"}"#.utf8)))
            }
            try store.commitPull(
                feed: feed, source: "github.repos", items: items, complete: true, stats: PullStats(pages: 100, requests: 100),
                error: nil, cacheEntries: [])
        }
        let written = ContinuousClock.now
        let placed = try store.placeUndatedItems(feedOrder: names)
        try store.close()
        let end = ContinuousClock.now
        print(
            "wrote \(options.feeds * options.items) items in \(options.feeds) feeds to \(location): commits "
                + "\(written - start), placing \(placed) undated items \(end - written)")
    }
}
