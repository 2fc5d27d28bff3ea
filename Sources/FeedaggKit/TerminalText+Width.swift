extension TerminalText {
    /// The number of terminal cells `text` takes.
    ///
    /// Counted per extended grapheme cluster (what a terminal draws as one character): a cluster
    /// shown as an emoji (an Emoji_Presentation character, a flag, a character followed by
    /// U+FE0F, a ZWJ sequence) takes 2; otherwise its first scalar decides: East Asian Wide and
    /// Fullwidth characters take 2, combining marks, format and control characters 0, others 1.
    /// Scalars after the first (combining marks, joiners, selectors) add nothing.
    public static func cellWidth(_ text: String) -> Int {
        var width = 0
        for character in text { width += cellWidth(of: character) }
        return width
    }

    /// The cells one grapheme cluster takes (see ``cellWidth(_:)``).
    public static func cellWidth(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value < 0x7F { return first.value < 0x20 ? 0 : 1 }  // ASCII fast path
        let properties = first.properties
        if properties.isEmojiPresentation { return 2 }
        if properties.isEmoji, scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x200D }) { return 2 }
        return scalarWidth(first)
    }

    /// The cells of one scalar on its own: 0, 1 or 2.
    static func scalarWidth(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(value) { return 0 }  // Hangul medial vowels and final consonants
        if value == 0x200B { return 0 }  // zero width space
        return isWide(value) ? 2 : 1
    }

    /// East Asian Width W or F (Unicode 15 EastAsianWidth.txt, ranges merged; emoji presentation
    /// characters are handled through their property instead).
    static func isWide(_ value: UInt32) -> Bool {
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// Sorted, disjoint.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul Jamo initial consonants
        0x2329...0x232A,  // angle brackets
        0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK compatibility
        0x3400...0x4DBF,  // CJK extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul Jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // fullwidth forms
        0xFFE0...0xFFE6,  // fullwidth signs
        0x16FE0...0x16FE4,  // ideographic symbols
        0x17000...0x18CFF,  // Tangut, Khitan
        0x1AFF0...0x1B2FF,  // Kana extended, supplement, Nushu
        0x1F200...0x1F2FF,  // enclosed ideographic supplement
        0x20000...0x2FFFD,  // CJK extensions B–F, compatibility supplement
        0x30000...0x3FFFD,  // CJK extensions G–H
    ]

    /// `text` cut to at most `cells` cells, ending with `…` when something was cut.
    public static func truncated(_ text: String, toCells cells: Int) -> String {
        guard cells > 0 else { return "" }
        guard cellWidth(text) > cells else { return text }
        var out = ""
        var used = 0
        for character in text {
            let width = cellWidth(of: character)
            if used + width > cells - 1 { break }
            out.append(character)
            used += width
        }
        return out + "…"
    }

    /// `text` cut or padded with spaces to exactly `cells` cells.
    public static func padded(_ text: String, toCells cells: Int) -> String {
        let cut = truncated(text, toCells: cells)
        let width = cellWidth(cut)
        return width < cells ? cut + String(repeating: " ", count: cells - width) : cut
    }
}
