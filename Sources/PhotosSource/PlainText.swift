import Foundation

/// Turns 500px's HTML-ish text fields (descriptions with `<a>` tags, names with `&mdash;`) into
/// one line of plain text.
enum PlainText {
    /// Named entities seen in 500px text, plus the XML five.
    private static let entities: [Substring: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ",
        "mdash": "\u{2014}", "ndash": "\u{2013}", "hellip": "\u{2026}", "laquo": "\u{00AB}", "raquo": "\u{00BB}",
        "lsquo": "\u{2018}", "rsquo": "\u{2019}", "ldquo": "\u{201C}", "rdquo": "\u{201D}", "copy": "\u{00A9}",
        "eacute": "\u{00E9}", "egrave": "\u{00E8}", "agrave": "\u{00E0}", "uuml": "\u{00FC}", "ouml": "\u{00F6}",
        "auml": "\u{00E4}", "szlig": "\u{00DF}", "deg": "\u{00B0}", "middot": "\u{00B7}", "bull": "\u{2022}",
    ]

    /// `text` with entities decoded and all whitespace runs collapsed to one space, trimmed.
    static func line(_ text: String) -> String {
        collapse(decodeEntities(text))
    }

    /// `html` as plain text: tags removed (block breaks become spaces), entities decoded,
    /// whitespace collapsed, cut at a word boundary to at most `limit` characters with `…`.
    static func summary(fromHTML html: String, limit: Int) -> String {
        truncate(collapse(decodeEntities(stripTags(html))), to: limit)
    }

    /// Removes `<…>` tags, replacing each with a space so words on either side stay apart.
    /// A `<` that does not open a tag (`a < b`) is kept, and so is an unclosed `<tag`. Linear time.
    static func stripTags(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "<")) else { return text }  // no tag: nothing to do
        var out = ""
        out.reserveCapacity(text.count)
        var index = text.startIndex
        // Once a tag finds no `>` after it, no later one can: stop searching, or text full of
        // unclosed `<a` takes quadratic time (a 200 kB description took minutes).
        var closeAhead = true
        while index < text.endIndex {
            let character = text[index]
            if character == "<", closeAhead {
                let next = text.index(after: index)
                let opensTag = next < text.endIndex
                    && (text[next].isLetter || text[next] == "/" || text[next] == "!")
                if opensTag {
                    if let close = text[next...].firstIndex(of: ">") {
                        out.append(" ")
                        index = text.index(after: close)
                        continue
                    }
                    closeAhead = false
                }
            }
            out.append(character)
            index = text.index(after: index)
        }
        return out
    }

    /// Decodes `&name;`, `&#NNN;` and `&#xHH;`; unknown or malformed references stay as written.
    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        out.reserveCapacity(text.count)
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let afterAmp = rest.index(after: amp)
            let window = rest[afterAmp...].prefix(12)
            if let semicolon = window.firstIndex(of: ";"), let decoded = decode(rest[afterAmp..<semicolon]) {
                out += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                out.append("&")
                rest = rest[afterAmp...]
            }
        }
        out += rest
        return out
    }

    private static func decode(_ name: Substring) -> String? {
        if name.hasPrefix("#") {
            let digits = name.dropFirst()
            let value: UInt32? =
                if digits.hasPrefix("x") || digits.hasPrefix("X") {
                    UInt32(digits.dropFirst(), radix: 16)
                } else {
                    UInt32(digits, radix: 10)
                }
            return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
        return entities[name]
    }

    /// Whitespace runs (including newlines and no-break spaces) as single spaces, trimmed.
    static func collapse(_ text: String) -> String {
        if let ascii = collapseASCII(text) { return ascii }
        return text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// ``collapse(_:)`` of an ASCII-only text, byte by byte (`nil` for any other text). In ASCII
    /// every character is one byte except CR LF, and the whitespace characters are exactly
    /// tab, LF, VT, FF, CR and space, so this splits and joins as `Character.isWhitespace` does.
    static func collapseASCII(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var space = false
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                if byte == 0x20 || (0x09...0x0D).contains(byte) {
                    space = !out.isEmpty
                    continue
                }
                if space {
                    out.append(0x20)
                    space = false
                }
                out.append(byte)
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// At most `limit` characters, cut after a word when one ends in the last fifth, with `…`.
    static func truncate(_ text: String, to limit: Int) -> String {
        guard text.count > limit, limit > 1 else { return text }
        var cut = String(text.prefix(limit - 1))
        if let space = cut.lastIndex(of: " "), cut.distance(from: space, to: cut.endIndex) <= limit / 5 {
            cut = String(cut[..<space])
        }
        while let last = cut.last, last.isWhitespace || last.isPunctuation && last != ")" { cut.removeLast() }
        return cut + "\u{2026}"
    }
}
