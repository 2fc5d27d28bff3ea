import FeedCore
import FeedaggKit
import Foundation
import Testing

// The pieces of terminal output, unit by unit: the sanitiser that keeps remote text from driving
// the terminal, cell widths, the table's layout, and the shell quoting of next commands.

@Suite("Terminal text: sanitiser, cell widths, table layout, shell quoting")
struct TerminalTextTests {
    /// Every scalar that must never reach a terminal from remote text.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    @Test(
        "escape sequences and control characters are removed, text around them kept",
        arguments: [
            ("a\u{1B}]0;pwned\u{07}b", "ab"),  // OSC window title, BEL-terminated
            ("a\u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\b", "alinkb"),  // OSC 8, ST-terminated
            ("\u{1B}[2Jclear", "clear"),  // CSI erase display
            ("\u{1B}[1;31mred\u{1B}[0m", "red"),  // SGR
            ("\u{1B}[?1049hx", "x"),  // private CSI
            ("bell\u{07}", "bell"),
            ("tab\there", "tab here"),
            ("cr\rlf\nvt\u{0B}ff\u{0C}", "cr lf vt ff "),
            ("nul\u{00}del\u{7F}", "nuldel"),
            ("c1\u{9B}2Jcsi", "c1csi"),  // 8-bit CSI
            ("c1\u{9D}0;title\u{9C}osc", "c1osc"),  // 8-bit OSC, 8-bit ST
            ("c1\u{9D}0;title\u{07}osc", "c1osc"),
            ("\u{85}nel\u{84}", "nel"),  // other C1 controls
            ("a\u{1B}Pq#0;2;0;0;0\u{1B}\\b", "ab"),  // DCS (sixel)
            ("a\u{1B}_apc\u{1B}\\b", "ab"),  // APC
            ("a\u{1B}^pm\u{9C}b", "ab"),  // PM, 8-bit ST
            ("a\u{1B}Xsos\u{1B}\\b", "ab"),  // SOS
            ("a\u{1B}(Bb", "ab"),  // charset designation: ESC, intermediate, final
            ("a\u{1B}cb", "ab"),  // RIS (full reset): ESC + one character
            ("a\u{1B}7b\u{1B}8", "ab"),  // save / restore cursor
            ("a\u{1B}\u{1B}[2Jb", "ab"),  // ESC ESC [ … : the second one still starts a sequence
            ("a\u{1B}[1\u{1B}]0;t\u{07}b", "ab"),  // a sequence interrupted by another
            ("unterminated \u{1B}]0;title with no end", "unterminated "),
            ("trailing escape\u{1B}", "trailing escape"),
            ("ünïcödé 日本 👍 stays", "ünïcödé 日本 👍 stays"),
            ("\r\n", "  "),  // one grapheme in Swift, two controls on the wire: two spaces
        ])
    func sanitises(input: String, expected: String) {
        let output = TerminalText.sanitized(input)
        #expect(output == expected, "\(input.debugDescription) → \(output.debugDescription)")
        #expect(!output.unicodeScalars.contains(where: Self.isControl), "\(output.debugDescription)")
    }

    @Test("keepingNewlines keeps LF only; every other control still goes")
    func keepsNewlines() {
        #expect(TerminalText.sanitized("one\ntwo\r\n\u{1B}[2Jthree\t4", keepingNewlines: true) == "one\ntwo \nthree 4")
    }

    @Test("no control scalar survives arbitrary input (every C0/C1 byte and ESC combination)")
    func noControlSurvives() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Unicode.Scalar] =
            (0x00...0x20).compactMap(Unicode.Scalar.init) + (0x7B...0xA0).compactMap(Unicode.Scalar.init)
            + ["[", "]", "P", "X", "^", "_", "\\", "(", "0", ";", "a", "日", "👍"]
        for _ in 0..<2_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...24, using: &generator) {
                text.append(alphabet.randomElement(using: &generator)!)
            }
            let output = TerminalText.sanitized(String(text))
            #expect(!output.unicodeScalars.contains(where: Self.isControl), "\(String(text).debugDescription)")
        }
    }

    @Test(
        "cell width: wide East Asian and emoji count 2, combining marks 0",
        arguments: [
            ("abc", 3), ("", 0), ("日本語", 6), ("한국", 4), ("ｱｲ", 2) /* halfwidth katakana */,
            ("ＡＢ", 4) /* fullwidth */, ("e\u{301}", 1) /* combining acute */, ("👍", 2), ("👍🏽", 2),
            ("👨‍👩‍👧", 2) /* ZWJ family */, ("❤️", 2) /* text char + VS16 */, ("❤", 1), ("🇫🇷", 2),
            ("a\u{200B}b", 2) /* zero width space */, ("𠀋", 2) /* CJK extension B */, ("—", 1), ("…", 1),
            ("\u{3000}", 2) /* ideographic space */,
        ])
    func cellWidth(text: String, cells: Int) {
        #expect(TerminalText.cellWidth(text) == cells, "\(text.debugDescription)")
    }

    @Test("truncation and padding work in cells: a wide character is never cut in half")
    func truncation() {
        #expect(TerminalText.truncated("日本語テキスト", toCells: 6) == "日本…")
        #expect(TerminalText.cellWidth(TerminalText.truncated("日本語テキスト", toCells: 6)) == 5)
        #expect(TerminalText.truncated("short", toCells: 10) == "short")
        #expect(TerminalText.padded("日本", toCells: 6) == "日本  ")
        #expect(TerminalText.padded("abcdefgh", toCells: 4) == "abc…")
        #expect(TerminalText.truncated("anything", toCells: 0) == "")
    }

    static func entry(_ title: String, summary: String? = nil, url: String? = nil, feed: String = "f") -> StreamEntry {
        StreamEntry(
            item: FeedItem(id: "t:\(title)", title: title, summary: summary, url: url, published: Date(timeIntervalSince1970: 1_700_000_000)),
            feed: feed, feeds: [feed], source: "test")
    }

    @Test("terminal table: every line fits the width in cells; the title column grows with the terminal")
    func terminalLayout() {
        let title = String(repeating: "長い題名", count: 12)  // 96 cells
        let entries = [Self.entry(title, summary: "a summary"), Self.entry("short", summary: "日本語の要約")]
        for width in [60, 100, 160, 240] {
            let layout = TableLayout(entries: entries, style: TableStyle(terminalWidth: width))
            for line in [layout.header] + entries.map(layout.row) {
                #expect(TerminalText.cellWidth(line) <= width, "width \(width): \(line)")
            }
        }
        /// How much of the title a row shows: its occurrences of 長 (one per 8 cells of title).
        func titleShown(_ width: Int) -> Int {
            TableLayout(entries: entries, style: TableStyle(terminalWidth: width)).row(entries[0]).filter { $0 == "長" }.count
        }
        #expect(TableLayout(entries: entries, style: TableStyle(terminalWidth: 240)).row(entries[0]).contains(title))
        #expect(!TableLayout(entries: entries, style: TableStyle(terminalWidth: 100)).row(entries[0]).contains(title))
        #expect(titleShown(160) > titleShown(100))
        #expect(titleShown(100) > titleShown(60))
    }

    @Test("--wide: a URL column printed whole; piped: tab-separated, untruncated, with a header")
    func wideAndPiped() {
        let url = "https://example.com/" + String(repeating: "x", count: 150)
        let entries = [Self.entry("title", summary: "summary\twith tab", url: url)]
        let wide = TableLayout(entries: entries, style: TableStyle(terminalWidth: 80, wide: true))
        #expect(wide.header.contains("URL"))
        #expect(wide.row(entries[0]).contains(url))
        let piped = TableLayout(entries: entries, style: TableStyle(terminalWidth: nil))
        #expect(piped.header == "DATE\tFEED\tTITLE\tSUMMARY\tURL")
        #expect(piped.row(entries[0]) == "2023-11-14\tf\ttitle\tsummary with tab\t\(url)")
    }

    @Test(
        "shell quoting: safe words as is, the rest in single quotes",
        arguments: [
            ("abc-DEF_1.2/x:y=z@%+,", "abc-DEF_1.2/x:y=z@%+,"), ("two words", "'two words'"),
            ("it's", #"'it'\''s'"#), ("", "''"), ("$HOME", "'$HOME'"), ("a;rm -rf /", "'a;rm -rf /'"),
            ("日本", "'日本'"), ("esc\u{1B}[2J", "esc"),
        ])
    func shellQuoting(argument: String, quoted: String) {
        #expect(ShowCommandLine.shellQuoted(argument) == quoted)
    }

    @Test("the next command carries every option of the listing")
    func nextCommand() {
        let line = ShowCommandLine(
            config: "my feeds.yaml", db: "/tmp/s.sqlite", feeds: ["a", "b"], sources: ["github.repos"], perPage: 5,
            wide: true)
        #expect(
            line.command(after: "CUR")
                == "feedagg show --after CUR --config 'my feeds.yaml' --db /tmp/s.sqlite --feed a --feed b "
                + "--source github.repos --per-page 5 --wide")
        #expect(ShowCommandLine().command(after: "CUR") == "feedagg show --after CUR")
    }

    @Test("counts are singular for 1", arguments: [(0, "0 items"), (1, "1 item"), (2, "2 items")])
    func plural(count: Int, text: String) {
        #expect(Plural.of(count, "item") == text)
    }
}
