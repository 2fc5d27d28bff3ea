import Testing

@testable import PhotosSource

// PlainText's fast paths (ASCII collapse, no-tag strip) against the general code they shortcut.

@Suite("500px text fast paths")
struct PlainTextFastPathTests {
    static let texts: [String] = [
        "", " ", "a", "  a  b  ", "a\tb\nc\r\nd\u{0B}e\u{0C}f\rg", "\r\n\r\n", "x\r\n", "\u{1C}a\u{1F}b\u{1D}",
        "Hotel parser uniform", "a\u{00A0}b", "café  au lait", "a\u{2028}b", "tab\t\t\tend\t", "a\u{85}b",
        String(repeating: "word ", count: 100), "<a href=\"x\">link</a> & more", "\u{7F}del\u{7F}", "a \u{1F680} b",
    ]

    @Test("collapse: the ASCII fast path equals splitting on Character.isWhitespace", arguments: texts)
    func collapse(_ text: String) {
        let reference = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        #expect(PlainText.collapse(text) == reference)
        #expect(Array(PlainText.collapse(text).utf8) == Array(reference.utf8))
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            #expect(PlainText.collapseASCII(text) == reference)
        } else {
            #expect(PlainText.collapseASCII(text) == nil)
        }
    }

    @Test("stripTags leaves a text without '<' as it is", arguments: texts)
    func stripTags(_ text: String) {
        if !text.contains("<") { #expect(Array(PlainText.stripTags(text).utf8) == Array(text.utf8)) }
    }
}
