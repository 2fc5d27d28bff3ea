import FeedCore
import FeedSearch
import FeedStorage
import Foundation
import GRDB

@testable import FeedStore

/// The selection of a stream computed the slow, obvious way from every stored row, with the
/// query language's reference evaluator (``SearchQuery/matches(_:now:)``): what both engines'
/// indexed reads must equal.
///
/// Each listed row its feed keeps (``FilterRules/keeps(_:feed:now:)``, on that feed's copy) joins
/// its dedup key's carriers; the first carrier in listing order is the entry, listing every
/// keeping feed; the entry is shown when the query matches it. Entries in stream order.
struct SearchReference {
    struct Row {
        var key: StreamOrderKey?
        var feed: String
        var id: String
        var dedupKey: String
        var sortKey: Double?
        var position: Int64
        var title: String
        var summary: String?
        var author: String?
        var date: Date?
    }

    struct Entry: Equatable, CustomStringConvertible {
        var feed: String
        var id: String
        var feeds: [String]
        var tags: [String]
        var description: String { "\(feed)/\(id)\(feeds.count > 1 ? " \(feeds)" : "")\(tags.isEmpty ? "" : " #\(tags)")" }
    }

    let rows: [Row]
    let sourceByFeed: [String: String]

    /// The visible rows of a SQLite store.
    init(_ store: FeedStore) throws {
        rows = try store.reading("read every row") { db in
            try GRDB.Row.fetchAll(
                db,
                sql: """
                    SELECT feed, id, dedup_key, sort_key, feed_position, title, summary, author_name, updated, published
                    FROM item WHERE staged = 0
                    """
            ).map { raw in
                let updated: Double? = raw["updated"]
                let published: Double? = raw["published"]
                return Row(
                    feed: raw["feed"], id: raw["id"], dedupKey: raw["dedup_key"], sortKey: raw["sort_key"],
                    position: raw["feed_position"], title: raw["title"], summary: raw["summary"], author: raw["author_name"],
                    date: (updated ?? published).map(Date.init(timeIntervalSince1970:)))
            }
        }
        sourceByFeed = Dictionary(uniqueKeysWithValues: try store.feedSummaries().map { ($0.name, $0.source) })
    }

    /// The entries of `feeds` (narrowed to `sources`) `selection` shows, in stream order.
    func entries(feeds: [String], sources: [String]?, selection: StreamSelection) -> [Entry] {
        let now = selection.now ?? Date()
        let ranked = StreamRanking.ranked(feeds, sourceByFeed: sourceByFeed, sources: sources)
        let rank = Dictionary(uniqueKeysWithValues: ranked.enumerated().map { ($0.element, $0.offset) })
        var groups: [String: [Row]] = [:]
        for row in rows {
            guard let feedRank = rank[row.feed] else { continue }
            let copy = SearchDocument(
                title: row.title, summary: row.summary, author: row.author, feeds: [row.feed],
                source: sourceByFeed[row.feed] ?? "", date: row.date)
            guard selection.rules.keeps(copy, feed: row.feed, now: now) else { continue }
            var row = row
            row.key = StreamOrderKey(sortKey: row.sortKey, rank: feedRank, position: row.position, feed: row.feed, id: row.id)
            groups[row.dedupKey, default: []].append(row)
        }
        var shown: [(key: StreamOrderKey, entry: Entry)] = []
        for carriers in groups.values {
            var set = StreamCarriers()
            for row in carriers {
                set.append(StreamCarriers.Carrier(feed: row.feed, rank: rank[row.feed]!, position: row.position, id: row.id))
            }
            guard let first = set.first, let row = carriers.first(where: { $0.feed == first.feed && $0.id == first.id })
            else { continue }
            let document = SearchDocument(
                title: row.title, summary: row.summary, author: row.author, feeds: set.feeds,
                source: sourceByFeed[row.feed] ?? "", date: row.date)
            guard selection.query.matches(document, now: now) else { continue }
            let tags = selection.rules.tags(for: document, feeds: set.feeds, now: now)
            shown.append((row.key!, Entry(feed: row.feed, id: row.id, feeds: set.feeds, tags: tags)))
        }
        return shown.sorted { $0.key.precedes($1.key) }.map(\.entry)
    }
}
