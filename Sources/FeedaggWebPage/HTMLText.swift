/// Remote text made fit for the page: control characters removed before the template escapes it.
///
/// swift-mustache escapes the markup characters of `{{…}}`; it leaves control characters, which
/// HTML forbids in text (WHATWG "control" code points), and which a reader copying a title would
/// carry along (ESC, BEL, CR overwriting a line in a terminal, U+009B CSI). Kept: TAB and LF.
/// Removed: every other C0 control (U+0000–U+001F), DEL, the C1 controls (U+0080–U+009F) and the
/// non-characters U+FFFE and U+FFFF. The page's script applies the same rule to the items it adds.
enum HTMLText {
    /// Whether `scalar` stays.
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: true
        case 0x00...0x1F, 0x7F...0x9F, 0xFFFE, 0xFFFF: false
        default: true
        }
    }

    /// `text` without the removed characters.
    static func cleaned(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { !isAllowed($0) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where isAllowed(scalar) { out.append(scalar) }
        return String(out)
    }

    /// `text` cleaned, `nil` staying `nil`.
    static func cleaned(_ text: String?) -> String? { text.map { cleaned($0) } }
}
