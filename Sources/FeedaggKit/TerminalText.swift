/// Makes remote text safe to print on a terminal.
///
/// Titles, summaries, author names, URLs and server messages come from servers nobody here
/// controls. Printed raw, `ESC ] 0;…BEL` renames the terminal window, `ESC [2J` clears the screen,
/// a CR overwrites the start of the line. ``sanitized(_:keepingNewlines:)`` removes every escape
/// sequence and control character before such text reaches a terminal (or a pipe: `table` output
/// is read by people either way). JSON output needs none of this: JSON escapes control characters.
public enum TerminalText {
    /// `text` without escape sequences or control characters.
    ///
    /// Removed: 7-bit escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL|ST`, DCS/SOS/PM/APC
    /// `ESC P|X|^|_ … ST`, and `ESC` with intermediates and one final character, e.g. `ESC ( B`),
    /// their 8-bit C1 forms (U+009B CSI, U+009D OSC, U+0090/98/9E/9F), every other C0 (U+0000–001F)
    /// and C1 (U+0080–009F) control character and DEL. TAB, CR, LF, VT and FF become one space each
    /// (so words stay apart), except that LF is kept when `keepingNewlines` is set.
    public static func sanitized(_ text: String, keepingNewlines: Bool = false) -> String {
        // Fast path: nothing to do for the common case of printable text.
        guard text.unicodeScalars.contains(where: needsWork) else { return text }
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let scalar = pending {
                pending = nil
                return scalar
            }
            return scalars.next()
        }
        while let scalar = next() {
            switch scalar.value {
            case 0x0A where keepingNewlines:
                out.append(scalar)
            case 0x09, 0x0A, 0x0B, 0x0C, 0x0D:
                out.append(" ")
            case 0x1B:
                guard let introducer = next() else { break }
                switch introducer {
                case "[": pending = skipControlSequence(next)
                case "]": skipString(next, bellEnds: true)
                case "P", "X", "^", "_": skipString(next, bellEnds: false)
                default:
                    // ESC, intermediates (0x20–0x2F), one final character.
                    var current: Unicode.Scalar? = introducer
                    while let value = current?.value, (0x20...0x2F).contains(value) { current = next() }
                    // A control character as "final" is not part of the sequence: look at it again.
                    if let current, current.value < 0x20 || (0x80...0x9F).contains(current.value) { pending = current }
                }
            case 0x9B:
                pending = skipControlSequence(next)
            case 0x9D:
                skipString(next, bellEnds: true)
            case 0x90, 0x98, 0x9E, 0x9F:
                skipString(next, bellEnds: false)
            case 0x00...0x1F, 0x7F...0x9F:
                break
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether `scalar` is a control character (C0, DEL or C1).
    static func needsWork(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Skips a control sequence's parameter and intermediate bytes and its final byte.
    /// A control character ends it early and is returned, to be looked at again (it may start
    /// another sequence); any other character ends it and is dropped as its final byte.
    private static func skipControlSequence(_ next: () -> Unicode.Scalar?) -> Unicode.Scalar? {
        while let scalar = next() {
            if (0x20...0x3F).contains(scalar.value) { continue }
            return needsWork(scalar) ? scalar : nil
        }
        return nil
    }

    /// Skips a control string up to its terminator: ST (`ESC \` or U+009C), or BEL for OSC.
    /// An unterminated string runs to the end of the text: all of it is dropped.
    private static func skipString(_ next: () -> Unicode.Scalar?, bellEnds: Bool) {
        while let scalar = next() {
            switch scalar.value {
            case 0x07 where bellEnds, 0x9C:
                return
            case 0x1B:
                if next() == "\\" { return }
            default:
                continue
            }
        }
    }
}
