/// Text made safe for an XML 1.0 document (Atom output): escaped, with the characters XML 1.0
/// cannot carry dropped.
///
/// Remote text (titles, summaries, URLs, names) is hostile. XML 1.0 §2.2 allows only TAB, LF, CR,
/// U+0020–U+D7FF, U+E000–U+FFFD and U+10000–U+10FFFF: every other C0 control (ESC, BEL, NUL…) and
/// U+FFFE/U+FFFF are dropped, since no escape can carry them (`&#x1B;` is not well-formed
/// either). DEL and the C1 controls (U+007F–U+009F), which XML 1.0 allows but discourages and
/// terminals obey (U+009B is a CSI), are dropped too. Lone surrogates cannot occur in a Swift
/// string. The five markup characters `& < > " '` become entity references, so the result is safe
/// in element content and in either kind of attribute quotes.
public enum XMLText {
    /// Whether `scalar` is kept (see the type's rule).
    public static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: true
        case 0x00...0x1F, 0x7F...0x9F, 0xFFFE, 0xFFFF: false
        default: true
        }
    }

    /// `text` without the characters that are dropped (not escaped).
    public static func cleaned(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where isAllowed(scalar) { out.append(scalar) }
        return String(out)
    }

    /// `text` cleaned and escaped, for element content or a quoted attribute value.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars where isAllowed(scalar) {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            // CR would be read back as LF (XML end-of-line handling): keep it as a reference.
            case "\r": out += "&#xD;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
