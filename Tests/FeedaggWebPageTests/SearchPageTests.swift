import FeedCore
import FeedaggKit
@testable import FeedaggWebPage
import Foundation
import Testing

// The page's search box, its parse errors, the saved views it lists and the tag labels on its
// cards, rendered on the server (the browser suite drives them in Chromium).

@Suite("Stream web page: search, views, labels")
struct SearchPageTests {
    static let hostileSearch = "\"><script>alert(1)</script> swift"

    static func page(_ options: StreamWebPage.Options, entries: [StreamEntry] = [], nextCursor: String? = nil) -> String {
        StreamWebPage.render(entries: entries, nextCursor: nextCursor, feeds: [PageFixtures.feed("repos")], options: options)
    }

    @Test("a GET form named q on /, holding the search as its value; the rest of the page's query kept as hidden fields")
    func searchBox() throws {
        let html = Self.page(
            StreamWebPage.Options(perPage: 10, feedFilter: ["repos"], search: Self.hostileSearch, view: "rust"),
            entries: [PageFixtures.entry("github.repos:1", title: "one")], nextCursor: "CURSOR")
        let scan = HTMLScan(html)
        let form = try #require(scan.tags.first { $0.name == "form" })
        #expect(form.value("method") == "get" && form.value("action") == "/" && form.value("role") == "search")
        let inputs = scan.tags.filter { $0.name == "input" }
        let box = try #require(inputs.first { $0.value("name") == "q" })
        #expect(box.value("type") == "search" && box.value("value") == Self.hostileSearch)
        let hidden = inputs.filter { $0.value("type") == "hidden" }.map { "\($0.value("name") ?? "")=\($0.value("value") ?? "")" }
        #expect(hidden == ["limit=10", "feed=repos", "view=rust"])
        #expect(!html.contains("<script>alert"), "the search is escaped")
        // The no-JS next page and the way back keep the search and the view.
        let older = try #require(scan.tags.first { $0.name == "a" && $0.value("rel") == "next" })
        #expect(older.value("href") == "/?after=CURSOR&limit=10&feed=repos&view=rust&q=%22%3E%3Cscript%3Ealert%281%29%3C%2Fscript%3E%20swift")
        #expect(scan.text.contains("Showing feed repos, view rust, results for \u{201C}\(Self.hostileSearch)\u{201D}"), "\(scan.text)")
    }

    @Test("a search that does not parse shows its error and caret as text, and no stream")
    func searchError() throws {
        let error = "query:1:7: error: '(' is never closed\n    swift (<b>\n          ^"
        let html = Self.page(StreamWebPage.Options(search: "swift (<b>", searchError: error))
        let scan = HTMLScan(html)
        let alert = try #require(scan.tags.first { $0.value("id") == "search-error" })
        #expect(alert.value("role") == "alert")
        #expect(scan.text.contains(error), "\(scan.text)")
        #expect(!html.contains("<b>"), "escaped")
        #expect(scan.text.contains("No items match."))
        #expect(Self.page(StreamWebPage.Options()).contains("search-error") == false)
    }

    @Test("the saved views are listed with their page and documents; none: no list")
    func views() throws {
        let html = Self.page(
            StreamWebPage.Options(views: [
                StreamWebPage.ViewLink(name: "rust", query: "rust -kernel"), StreamWebPage.ViewLink(name: "a.b_c-d", query: "x"),
            ]))
        let scan = HTMLScan(html)
        let links = scan.tags.filter { $0.name == "a" }.compactMap { $0.value("href") }.filter { $0.contains("view") }
        #expect(links == ["/?view=rust", "/views/rust.atom", "/views/rust.json", "/?view=a.b_c-d", "/views/a.b_c-d.atom", "/views/a.b_c-d.json"])
        #expect(scan.tags.first { $0.name == "a" && $0.value("href") == "/?view=rust" }?.value("title") == "rust -kernel")
        #expect(!Self.page(StreamWebPage.Options()).contains("class=\"views\""))
    }

    @Test("a card shows its tag labels after its feeds, as text")
    func labels() {
        var entry = PageFixtures.entry("github.repos:1", title: "advisory")
        entry.tags = ["security", "<i>x</i>"]
        let html = Self.page(StreamWebPage.Options(), entries: [entry])
        #expect(html.contains(#"<span class="feed">repos</span></span>"#))
        #expect(html.contains(#"<span class="tag">security</span><span class="tag">&lt;i&gt;x&lt;/i&gt;</span>"#), "\(html)")
        #expect(!Self.page(StreamWebPage.Options(), entries: [PageFixtures.entry("github.repos:1", title: "plain")]).contains("class=\"tag\""))
    }
}
