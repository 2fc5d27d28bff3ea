import FeedCore
import FeedSearch
import FeedaggKit
import Foundation
import Testing

// The labels of tag rules (StreamEntry.tags) in every output, and the rules applied to entries
// that do not come from the store (`pull --limit`'s newest items).

@Suite("Tag labels in every format; rules on fetched entries")
struct TagLabelsTests {
    static let date = Date(timeIntervalSince1970: 1_795_000_000)

    static func entry(_ title: String, feeds: [String], tags: [String] = [], summary: String? = nil) -> StreamEntry {
        StreamEntry(
            item: FeedItem(
                id: title.lowercased(), title: title, summary: summary, url: "https://example.com/\(title.count)",
                updated: date),
            feed: feeds[0], feeds: feeds, source: "http", tags: tags)
    }

    static let tagged = entry("Security advisory", feeds: ["news"], tags: ["security", "news", "a&b"])
    static let plain = entry("Weekly links", feeds: ["news", "blog"])

    @Test("JSON and JSONL: tags on every entry, empty when no rule labels it")
    func json() throws {
        let page = StreamPage(page: 1, perPage: 20, totalItems: 2, totalPages: 1, entries: [Self.tagged, Self.plain])
        let body = StreamRenderer.render(page, format: .json).body
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let items = object["items"] as? [[String: Any]] ?? []
        #expect(items.map { $0["tags"] as? [String] } == [["security", "news", "a&b"], []])
        let lines = StreamRenderer.render(page, format: .jsonl).body.split(separator: "\n")
        #expect(lines.first?.hasSuffix(#","tags":["security","news","a&b"]}"#) == true, "\(lines)")
    }

    @Test("Atom: one category per feed, then one per label not already a feed, escaped")
    func atom() {
        let document = AtomRenderer.document([Self.tagged], identity: FeedIdentity(feeds: ["news"]), nextCursor: nil)
        let categories = document.split(separator: "\n").filter { $0.contains("<category") }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(categories == [#"<category term="news"/>"#, #"<category term="security"/>"#, #"<category term="a&amp;b"/>"#])
    }

    @Test("JSON Feed: tags are the feeds, then the labels")
    func jsonFeed() throws {
        let body = JSONFeedRenderer.document([Self.tagged, Self.plain], identity: FeedIdentity(feeds: ["news"]), nextCursor: nil)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let items = object["items"] as? [[String: Any]] ?? []
        #expect(items.map { $0["tags"] as? [String] } == [["news", "security", "a&b"], ["news", "blog"]])
    }

    @Test("table: the labels lead the title, on a terminal and in tab-separated output")
    func table() {
        let page = StreamPage(page: 1, perPage: 20, totalItems: 2, totalPages: 1, entries: [Self.tagged, Self.plain])
        for style in [TableStyle(terminalWidth: 200), TableStyle(terminalWidth: nil)] {
            let lines = StreamRenderer.render(page, format: .table, style: style).body.split(separator: "\n")
            #expect(lines.count == 3, "\(lines)")
            #expect(lines[1].contains("[security, news, a&b] Security advisory"), "\(lines[1])")
            #expect(lines[2].contains("Weekly links") && !lines[2].contains("["), "\(lines[2])")
        }
    }

    @Test("rules on fetched entries: a feed's drop hides its copy, the other feed's copy stays; labels from the keeping feeds")
    func appliedToFetchedEntries() throws {
        let rules = FilterRules(
            global: [FilterRule(.drop, query: try SearchQuery(parsing: "knitting"), text: "knitting")],
            feeds: [
                "news": [
                    FilterRule(.drop, query: try SearchQuery(parsing: "weekly"), text: "weekly"),
                    FilterRule(.tag("from-news"), query: try SearchQuery(parsing: "links"), text: "links"),
                ],
                "blog": [FilterRule(.tag("from-blog"), query: try SearchQuery(parsing: "links"), text: "links")],
            ])
        let entries = [Self.plain, Self.entry("Knitting", feeds: ["blog"]), Self.entry("Security advisory", feeds: ["news"])]
        let shown = rules.applied(to: entries, now: Self.date)
        #expect(shown.map(\.item.title) == ["Weekly links", "Security advisory"])
        #expect(shown.first?.feeds == ["blog"] && shown.first?.feed == "blog", "news dropped its copy")
        #expect(shown.first?.tags == ["from-blog"], "only the keeping feed's tag rules label it")
        #expect(FilterRules.none.applied(to: entries, now: Self.date).count == 3)
    }
}
