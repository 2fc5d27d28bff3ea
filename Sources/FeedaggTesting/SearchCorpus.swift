public import FeedSearch
public import Foundation
public import LoopbackServer
import Synchronization

/// Two small feeds whose text the query language can be tested on end to end, served on loopback
/// for `source: http` feeds (`news` and `blog`), with the expected result of any query and rule
/// set computed by the reference evaluator (``SearchQuery/matches(_:now:)``, ``FilterRules``).
///
/// Sixteen items, one hour apart, newest first; one ("Server-side Swift on Linux") is in both
/// feeds (the same URL, so the stream shows it once, carried by both). The text has what the
/// grammar needs: a prefix (`swift*` also matches "Swifts"), diacritics ("Café"), phrases, the
/// same word in a title and in a summary, authors, numbers.
public enum SearchCorpus {
    /// One item as served (and, for the shared one, as both feeds serve it).
    public struct Item: Sendable {
        public var number: Int
        public var feeds: [String]
        public var title: String
        public var summary: String
        public var author: String
        public var updated: Date
        public var url: String { "https://example.com/items/\(number)" }
    }

    /// The declared feeds, in stream order.
    public static let feedNames = ["news", "blog"]

    /// The newest item's date; item `n` (in stream order) is `n` hours older.
    public static let newest = Date(timeIntervalSince1970: 1_795_000_000)

    /// Every item, newest first.
    public static let items: [Item] = {
        let rows: [([String], String, String, String)] = [
            (["news"], "Swift 6.1 released", "Faster builds on Linux", "Ada"),
            (["blog"], "Knitting patterns for winter", "Wool and needles", "Barbara"),
            (["news"], "Rust beta channel notes", "Nightly and beta toolchains", "Grace"),
            (["blog"], "Swifts and swallows", "Birds of summer", "Ada"),
            (["news"], "Café society", "Coffee and code", "Linus"),
            (["news", "blog"], "Server-side Swift on Linux", "Vapor and Hummingbird", "Ada"),
            (["news"], "Security advisory CVE-2026-1234", "Patch the parser now", "Ken"),
            (["blog"], "Security at scale", "Threat models for small teams", "Ken"),
            (["news"], "Swift beta 7 toolchain", "Preview builds", "Barbara"),
            (["blog"], "Hummingbird 2 migration", "From 1.x to 2.0, with Swift concurrency", "Linus"),
            (["news"], "Weekly links", "Swift, Rust and Go", "Grace"),
            (["blog"], "A beta of the blog engine", "Try it", "Grace"),
            (["news"], "Rust 2.0 roadmap", "Plans for editions", "Margaret"),
            (["blog"], "Rust in the kernel", "Drivers, mostly", "Margaret"),
            (["news"], "Go generics one year on", "Type parameters", "Ken"),
            (["blog"], "Server side rendering", "Templates and caches", "Barbara"),
        ]
        return rows.enumerated().map { index, row in
            Item(
                number: index + 1, feeds: row.0, title: row.1, summary: row.2, author: row.3,
                updated: newest.addingTimeInterval(-3600 * Double(index)))
        }
    }()

    /// The JSON array `feed` serves.
    public static func body(_ feed: String) -> String {
        let objects = items.filter { $0.feeds.contains(feed) }.map { item in
            let fields: [String: Any] = [
                "id": item.number, "title": item.title, "url": item.url, "summary": item.summary, "author": item.author,
                "updated": ISO8601DateFormatter().string(from: item.updated),
            ]
            let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
            return String(decoding: data, as: UTF8.self)
        }
        return "[" + objects.joined(separator: ",") + "]"
    }

    /// The two feeds' API on loopback; counts the requests it answers.
    public final class API: Sendable {
        public let server: LoopbackHTTPServer
        private let counter: Counter

        private init(server: LoopbackHTTPServer, counter: Counter) {
            self.server = server
            self.counter = counter
        }

        /// Starts the server.
        public static func start() async throws -> API {
            let counter = Counter()
            let server = try await LoopbackHTTPServer.start { request in
                counter.add()
                let feed = String(request.path.dropFirst())
                guard SearchCorpus.feedNames.contains(feed) else {
                    return LoopbackResponse(status: 404, headers: [("Content-Type", "text/plain")], text: "no feed")
                }
                return LoopbackResponse(headers: [("Content-Type", "application/json")], text: SearchCorpus.body(feed))
            }
            return API(server: server, counter: counter)
        }

        /// `http://127.0.0.1:PORT`.
        public var baseURL: String { server.baseURL }

        /// Requests answered so far.
        public var requests: Int { counter.value }

        /// Stops the server.
        public func stop() async { try? await server.shutdown() }
    }

    /// A count shared with the server's handler.
    final class Counter: Sendable {
        private let state = Mutex(0)
        func add() { state.withLock { $0 += 1 } }
        var value: Int { state.withLock { $0 } }
    }

    /// feeds.yaml declaring `news` and `blog` against `base`, with `top` before `feeds:` (views,
    /// `settings: filters:`) and each feed's `extra` lines (its own `filters:`), indented as given.
    public static func feedsYAML(base: String, top: String = "", extra: [String: String] = [:]) -> String {
        var text = top.isEmpty ? "" : top.hasSuffix("\n") ? top : top + "\n"
        text += "feeds:\n"
        for feed in feedNames {
            text += """
                  - name: \(feed)
                    source: http
                    base_url: \(base)
                    url: "{+base_url}/\(feed)"
                    items: "$"
                    fields: {id: "$.id", title: "$.title", url: "$.url", summary: "$.summary", updated: "$.updated", author: "$.author"}

                """
            if let lines = extra[feed] { text += lines.hasSuffix("\n") ? lines : lines + "\n" }
        }
        return text
    }

    /// One entry of the stream as a read with `query` and `rules` must show it.
    public struct Expected: Sendable, Equatable, CustomStringConvertible {
        public var title: String
        /// The feeds that keep it, in declaration order.
        public var feeds: [String]
        /// The labels of the tag rules.
        public var tags: [String]

        /// Creates an expected entry.
        public init(title: String, feeds: [String], tags: [String]) {
            self.title = title
            self.feeds = feeds
            self.tags = tags
        }

        public var description: String { "\(title) [\(feeds.joined(separator: "+"))]\(tags.isEmpty ? "" : " #" + tags.joined(separator: ",#"))" }
    }

    /// The stream `query` and `rules` select, by the reference evaluator: each feed keeps its copy
    /// when the rules let it, an item shows when a feed keeps it, the query sees the merged entry.
    public static func expected(_ query: SearchQuery = .everything, rules: FilterRules = .none, now: Date = Date())
        -> [Expected]
    {
        items.compactMap { item in
            let kept = item.feeds.filter { rules.keeps(document(item, feeds: [$0]), feed: $0, now: now) }
            guard !kept.isEmpty, query.matches(document(item, feeds: kept), now: now) else { return nil }
            return Expected(title: item.title, feeds: kept, tags: rules.tags(for: document(item, feeds: kept), feeds: kept, now: now))
        }
    }

    static func document(_ item: Item, feeds: [String]) -> SearchDocument {
        SearchDocument(
            title: item.title, summary: item.summary, author: item.author, feeds: feeds, source: "http", date: item.updated)
    }
}
