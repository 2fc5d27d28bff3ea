import FeedCore
import FeedaggKit
@testable import FeedaggWebPage
import Foundation
import Testing

/// The tags the page may contain; anything else in the output came from remote text.
private let pageTags: Set<String> = [
    "html", "head", "meta", "title", "link", "script", "body", "a", "header", "div", "h1", "p", "span", "button",
    "main", "details", "summary", "table", "thead", "tr", "th", "tbody", "td", "time", "h2", "ol", "li", "article",
    "img", "h3", "nav", "form", "input", "pre",
]

/// A page of hostile entries, with a hostile feed error.
private func hostilePage() -> String {
    let entries = [
        PageFixtures.entry(
            "github.repos:1", title: PageFixtures.hostileTitle, url: "javascript:alert(1)",
            summary: PageFixtures.hostileSummary,
            author: FeedAuthor(
                name: PageFixtures.hostileAuthor, url: "JaVaScRiPt:alert(2)",
                avatarURL: "data:image/svg+xml,<svg onload=alert(4)>"),
            image: "java\tscript:alert(5)"),
        PageFixtures.entry(
            "github.repos:2", title: "\" onmouseover=\"alert(6)", url: "https://example.com/a?x=1&y=\"2\"",
            author: FeedAuthor(name: "eve", url: "//evil.example/profile", avatarURL: " https://example.com/a.png"),
            image: "vbscript:msgbox(7)"),
        // A hostile title behind a good link, and a summary that tries to close the paragraph.
        PageFixtures.entry(
            "github.repos:3", title: "<script>alert(8)</script>", url: "https://example.com/b",
            summary: "</p><iframe src=https://example.com/frame>"),
    ]
    return StreamWebPage.render(
        entries: entries, nextCursor: "c\"ur<sor>&1", feeds: [PageFixtures.feed("repos", error: PageFixtures.hostileFeedError)])
}

@Suite("Stream web page: server-rendered HTML")
struct StreamWebPageTests {
    @Test("hostile titles, summaries, authors and feed errors render as text: no tag, attribute or script of theirs")
    func hostileTextIsEscaped() throws {
        let html = hostilePage()
        let scan = HTMLScan(html)
        let unexpected = Set(scan.tags.map(\.name)).subtracting(pageTags)
        #expect(unexpected.isEmpty, "tags from remote text: \(unexpected)")
        for tag in scan.tags {
            let handlers = tag.attributes.filter { $0.name.hasPrefix("on") }
            #expect(handlers.isEmpty, "<\(tag.name)> has event handler attributes \(handlers)")
            #expect(tag.value("style") == nil, "<\(tag.name)> has an inline style")
        }
        // The only script is the page's own, loaded from its path.
        let scripts = scan.tags.filter { $0.name == "script" }
        #expect(scripts.count == 1 && scripts.first?.value("src") == WebAssets.scriptPath)
        // Every hostile text is there, as text.
        for text in [
            PageFixtures.hostileTitle, PageFixtures.hostileSummary, PageFixtures.hostileAuthor,
            PageFixtures.hostileFeedError, "\" onmouseover=\"alert(6)", "<script>alert(8)</script>",
            "</p><iframe src=https://example.com/frame>",
        ] {
            #expect(scan.text.contains(text), "\(text) is not shown as text")
        }
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<script>alert"))
        // The cursor is an attribute value and a query value: escaped and percent-encoded.
        let stream = try #require(scan.tags.first { $0.value("id") == "stream" })
        #expect(stream.value("data-next-cursor") == "c\"ur<sor>&1")
        let older = try #require(scan.tags.first { $0.name == "a" && $0.value("rel") == "next" })
        #expect(older.value("href") == "/?after=c%22ur%3Csor%3E%261&limit=3")
    }

    @Test("links and images are only ever http/https: javascript:, data:, vbscript:, //host and spaced URLs are dropped")
    func onlyWebURLs() throws {
        let html = hostilePage()
        let scan = HTMLScan(html)
        var remote: [String] = []
        for tag in scan.tags {
            for (name, value) in tag.attributes where name == "href" || name == "src" {
                // The page's own paths and anchors.
                if (value.hasPrefix("/") && !value.hasPrefix("//")) || value.hasPrefix("#") { continue }
                remote.append(value)
                #expect(value.hasPrefix("https://") || value.hasPrefix("http://"), "<\(tag.name) \(name)=\(value)>")
            }
        }
        // The one good URL survives with its query intact; no other remote URL is on the page.
        #expect(remote == ["https://example.com/a?x=1&y=\"2\"", "https://example.com/b"])
        for bad in ["javascript", "JaVaScRiPt", "data:image", "vbscript", "evil.example", "a.png"] {
            #expect(!html.contains(bad), "\(bad) reached the page")
        }
        // The entry whose URL was dropped keeps its title, without a link.
        let titles = scan.tags.filter { $0.name == "h3" }
        #expect(titles.count == 3)
    }

    @Test(
        "WebURL.safe keeps absolute http/https URLs only",
        arguments: [
            ("https://example.com/x", true), ("http://127.0.0.1:8080/a?b=c", true), ("HTTPS://EXAMPLE.COM/", true),
            ("javascript:alert(1)", false), ("JAVASCRIPT:alert(1)", false), (" javascript:alert(1)", false),
            ("java\nscript:alert(1)", false), ("java\tscript:alert(1)", false), ("data:text/html,<b>", false),
            ("vbscript:x", false), ("//evil.example/x", false), ("/relative", false), ("https://", false),
            ("https:///path", false), ("ftp://example.com/x", false), ("https://exa mple.com", false),
            ("https://example.com/\u{7F}", false), ("", false),
        ])
    func webURL(url: String, kept: Bool) {
        #expect((WebURL.safe(url) != nil) == kept, "\(url)")
    }

    @Test("the first page works without JavaScript: its items in stream order, the Older link, the end hidden")
    func firstPageWithoutScript() throws {
        let entries = (1...20).map { index in
            PageFixtures.entry(
                "github.repos:\(index)", title: "repo \(index)", url: "https://example.com/r/\(index)",
                summary: "summary \(index)",
                author: FeedAuthor(name: "owner\(index)", url: "https://example.com/u/\(index)", avatarURL: "https://example.com/u/\(index).png"),
                updated: Date(timeIntervalSince1970: 1_764_000_000 - Double(index) * 60))
        }
        let html = StreamWebPage.render(
            entries: entries, nextCursor: "eyJpIjoiMjAifQ", feeds: [PageFixtures.feed("repos", items: 45)],
            options: .init(perPage: 20, totalItems: 45))
        let scan = HTMLScan(html)
        let cards = scan.tags.filter { $0.name == "li" }.compactMap { $0.value("data-id") }
        #expect(cards == entries.map(\.item.id))
        let links = scan.tags.filter { $0.name == "a" }.compactMap { $0.value("href") }
        let itemLinks = links.filter { $0.hasPrefix("https://example.com/r/") }
        #expect(itemLinks == (1...20).map { "https://example.com/r/\($0)" })
        #expect(links.contains("/?after=eyJpIjoiMjAifQ&limit=20"), "the Older link for readers without JavaScript")
        let end = try #require(scan.tags.first { $0.value("id") == "end" })
        #expect(end.attributes.contains { $0.name == "hidden" }, "more pages follow: the end is not marked yet")
        // Author with avatar and profile link, feed, source, date.
        #expect(scan.tags.contains { $0.name == "img" && $0.value("src") == "https://example.com/u/1.png" })
        #expect(links.contains("https://example.com/u/1"))
        #expect(scan.text.contains("owner1") && scan.text.contains("github.repos"))
        let first = try #require(scan.tags.first { $0.name == "time" && $0.value("title") == "updated" })
        #expect(first.value("datetime") == "2025-11-24T15:59:00Z")
        #expect(scan.text.contains("2025-11-24 15:59 UTC"))
        // The script, the stylesheet and the feeds are linked.
        #expect(scan.tags.contains { $0.name == "link" && $0.value("href") == WebAssets.stylesheetPath })
        #expect(scan.tags.contains { $0.name == "link" && $0.value("type") == "application/atom+xml" })
        #expect(scan.text.contains("45"))
    }

    @Test("the last page marks the end and has no Older link; an after-cursor page links back to the newest")
    func lastPage() throws {
        let entries = [PageFixtures.entry("github.repos:9", title: "last one")]
        let html = StreamWebPage.render(
            entries: entries, nextCursor: nil, feeds: [], options: .init(after: "abc", feedFilter: ["repos & co"]))
        let scan = HTMLScan(html)
        #expect(!scan.tags.contains { $0.value("rel") == "next" })
        let end = try #require(scan.tags.first { $0.value("id") == "end" })
        #expect(!end.attributes.contains { $0.name == "hidden" })
        #expect(scan.text.contains("You’ve reached the end."))
        #expect(scan.tags.contains { $0.name == "a" && $0.value("href") == "/?limit=20&feed=repos%20%26%20co" })
        let stream = try #require(scan.tags.first { $0.value("id") == "stream" })
        #expect(stream.value("data-next-cursor") == "")
        #expect(scan.text.contains("Showing feed repos & co"))
    }

    @Test("the server's one call, entries only: the page size is a full page's, the filters of the query kept")
    func entriesOnly() throws {
        let entries = (1...7).map { PageFixtures.entry("github.repos:\($0)", title: "repo \($0)") }
        let full = HTMLScan(StreamWebPage.render(entries: entries, nextCursor: "next", feeds: []))
        let stream = try #require(full.tags.first { $0.value("id") == "stream" })
        #expect(stream.value("data-per-page") == "7", "a page with a next cursor is a full page")
        #expect(stream.value("data-items") == "/api/items" && stream.value("data-refresh") == "/api/refresh")
        #expect(!full.tags.contains { $0.value("id") == "total-items" }, "no total when the server gave none")
        let last = HTMLScan(StreamWebPage.render(entries: entries, nextCursor: nil, feeds: []))
        #expect(last.tags.first { $0.value("id") == "stream" }?.value("data-per-page") == "20")
        let filtered = HTMLScan(
            StreamWebPage.render(
                entries: entries, nextCursor: "n", feeds: [], options: .init(feedFilter: ["a", "b"], sourceFilter: ["http"])))
        #expect(filtered.tags.contains { $0.value("rel") == "next" && $0.value("href") == "/?after=n&limit=7&feed=a&feed=b&source=http" })
    }

    @Test("an empty store says so, without an end marker")
    func emptyStore() throws {
        let html = StreamWebPage.render(entries: [], nextCursor: nil, feeds: [PageFixtures.feed("repos", items: 0, updated: nil)])
        let scan = HTMLScan(html)
        #expect(scan.text.contains("No items yet."))
        #expect(scan.text.contains("never"))
        let end = try #require(scan.tags.first { $0.value("id") == "end" })
        #expect(end.attributes.contains { $0.name == "hidden" })
    }

    @Test("feeds show last update and last error, never the configuration path or the credential's name")
    func feedsPanel() {
        let html = StreamWebPage.render(
            entries: [], nextCursor: nil,
            feeds: [
                PageFixtures.feed("repos", credential: "${GITHUB_TOKEN}"),
                PageFixtures.feed("photos", source: "500px.photos", error: "HTTP 503 from api.example"),
            ])
        let scan = HTMLScan(html)
        #expect(scan.text.contains("HTTP 503 from api.example"))
        #expect(scan.text.contains("2025-11-24 16:00 UTC"))
        #expect(scan.text.contains("1 failing"))
        #expect(scan.tags.contains { $0.name == "details" && $0.attributes.contains { $0.name == "open" } })
        #expect(!html.contains("/home/someone"), "the configuration path is not for a page")
        #expect(!html.contains("GITHUB_TOKEN"))
    }

    @Test("the template has no unescaped tag; the script never parses remote text as HTML")
    func noUnescapedOutput() {
        #expect(!PageTemplate.text.contains("{{{") && !PageTemplate.text.contains("{{&"))
        for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setAttribute('on"] {
            #expect(!WebAssets.script.contains(sink), "app.js uses \(sink)")
        }
        #expect(WebAssets.script.contains("textContent"))
        // The Content-Security-Policy header the server sends is checked where it is sent
        // (ServeAPITests: every answer has script-src 'self' and nothing inline).
    }
}
