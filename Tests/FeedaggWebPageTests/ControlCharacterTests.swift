import FeedCore
import FeedaggKit
@testable import FeedaggWebPage
import Testing

// Remote text reaches the page without control characters (issue 25): the server-rendered page
// and the script's cards apply the same rule (HTMLText, app.js's clean()).

@Suite("Stream web page: control characters")
struct ControlCharacterTests {
    /// Every control character HTML forbids, and a C1 CSI.
    static let controls = "\u{0}\u{1}\u{7}\u{8}\u{B}\u{C}\r\u{1B}[2J\u{1B}]0;pwned\u{7}\u{7F}\u{85}\u{9B}31m\u{FFFE}"

    @Test("titles, summaries, authors and feed errors lose every control character but TAB and LF")
    func removed() throws {
        let entry = PageFixtures.entry(
            "github.repos:1", title: "ti\(Self.controls)tle", url: "https://example.com/a",
            summary: "line one\nline\ttwo\(Self.controls)",
            author: FeedAuthor(name: "au\(Self.controls)thor", url: nil, avatarURL: nil), image: nil)
        let html = StreamWebPage.render(
            entries: [entry], nextCursor: nil, feeds: [PageFixtures.feed("repos", error: "boom\(Self.controls)!")])
        for scalar in html.unicodeScalars {
            let allowed = scalar == "\t" || scalar == "\n" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
            #expect(allowed && scalar.value != 0xFFFE, "U+\(String(scalar.value, radix: 16)) reached the page")
        }
        let text = HTMLScan(html).text
        #expect(text.contains("ti[2J]0;pwned31mtle"), "the printable rest stays: \(text.prefix(400))")
        #expect(text.contains("line one\nline\ttwo"))
        #expect(text.contains("boom[2J]0;pwned31m!"))
    }

    @Test("app.js cleans the text of the cards and feed rows it builds with the same rule")
    func script() {
        let script = WebAssets.script
        #expect(script.contains(#"replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\uFFFE\uFFFF]/g, '')"#))
        #expect(script.contains("node.textContent = clean(text)"))
        #expect(script.contains("error.textContent = clean(feed.last_error)"))
    }
}
