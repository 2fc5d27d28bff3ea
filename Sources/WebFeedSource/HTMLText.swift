import CLibXML2
import Foundation

/// Turns the HTML of a description or content into one line of plain text, through libxml2's
/// HTML parser (forgiving, no network): markup stripped, `script`/`style` dropped, entities
/// decoded, block boundaries and runs of whitespace folded into single spaces.
enum HTMLText {
    /// Elements whose text is not prose.
    private static let skipped: Set<String> = ["script", "style", "noscript", "template", "head"]
    /// Elements that separate words even without whitespace around them.
    static let blocks: Set<String> = [
        "p", "br", "div", "li", "ul", "ol", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
        "pre", "hr", "table", "section", "article", "figure", "figcaption", "dd", "dt", "img",
    ]

    /// The plain text of the HTML fragment `html`.
    static func plainText(_ html: String) -> String {
        var html = html
        return html.withUTF8 { plainText(bytes: $0) }
    }

    /// The plain text of the HTML fragment in `bytes` (UTF-8). The text nodes are gathered as
    /// bytes and folded in one pass: one String is built, for the result.
    static func plainText(bytes: UnsafeBufferPointer<UInt8>) -> String {
        // No markup and no entity: folding is all there is to do, without libxml2's HTML parser.
        if !bytes.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") }) {
            return fold(bytes: bytes)
        }
        let options = Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOIMPLIED.rawValue)
        var wrapped: [UInt8] = []
        wrapped.reserveCapacity(bytes.count + 11)
        wrapped.append(contentsOf: "<div>".utf8)
        // A NUL ends libxml2's reading of the buffer as it ended the C string before.
        wrapped.append(contentsOf: bytes.prefix { $0 != 0 })
        wrapped.append(contentsOf: "</div>".utf8)
        let document = wrapped.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                htmlReadMemory($0, Int32(clamping: buffer.count), nil, "UTF-8", options)
            }
        }
        guard let document else { return fold(bytes: bytes) }
        defer { xmlFreeDoc(document) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        if let root = xmlDocGetRootElement(document) { collect(root, into: &out, depth: 0) }
        return out.withUnsafeBufferPointer { fold(bytes: $0) }
    }

    /// Appends the text under `node` to `out` as UTF-8, skipping non-prose elements.
    private static func collect(_ node: xmlNodePtr, into out: inout [UInt8], depth: Int) {
        guard depth < 256 else { return }
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content {
                    out.append(contentsOf: UnsafeBufferPointer(start: content, count: strlen(content)))
                }
            case XML_ELEMENT_NODE:
                // Element names are short: a small String, no allocation.
                let name = current.pointee.name.map { String(cString: $0).lowercased() } ?? ""
                if !skipped.contains(name) {
                    let block = blocks.contains(name)
                    if block { out.append(0x20) }
                    collect(current, into: &out, depth: depth + 1)
                    if block { out.append(0x20) }
                }
            default:
                break
            }
            child = current.pointee.next
        }
    }

    /// Every run of whitespace (non-breaking spaces included) as one space, trimmed.
    static func fold(_ text: String) -> String {
        var text = text
        return text.withUTF8 { fold(bytes: $0) }
    }

    /// ``fold(_:)`` over UTF-8 bytes, in one pass, building one String. Whitespace is Unicode's
    /// White_Space property (what `Unicode.Scalar.Properties.isWhitespace` tests), recognised
    /// from its UTF-8 bytes: U+0009–000D, U+0020, U+0085, U+00A0, U+1680, U+2000–200A, U+2028,
    /// U+2029, U+202F, U+205F, U+3000. Invalid UTF-8 is repaired as `String(decoding:)` does.
    static func fold(bytes input: UnsafeBufferPointer<UInt8>) -> String {
        if input.isEmpty { return "" }
        return String(unsafeUninitializedCapacity: input.count) { out in
            var written = 0
            var pendingSpace = false
            var index = 0
            let count = input.count
            while index < count {
                let byte = input[index]
                let width = whitespaceWidth(input, at: index, byte: byte)
                if width > 0 {
                    pendingSpace = written > 0
                    index += width
                    continue
                }
                if pendingSpace {
                    out[written] = 0x20
                    written += 1
                    pendingSpace = false
                }
                out[written] = byte
                written += 1
                index += 1
            }
            return written
        }
    }

    /// The length in bytes of the whitespace character starting at `index`, or 0.
    @inline(__always)
    private static func whitespaceWidth(_ input: UnsafeBufferPointer<UInt8>, at index: Int, byte: UInt8) -> Int {
        if byte < 0x80 { return byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) ? 1 : 0 }
        let count = input.count
        switch byte {
        case 0xC2:  // U+0085, U+00A0
            guard index + 1 < count else { return 0 }
            let next = input[index + 1]
            return next == 0x85 || next == 0xA0 ? 2 : 0
        case 0xE1:  // U+1680
            guard index + 2 < count else { return 0 }
            return input[index + 1] == 0x9A && input[index + 2] == 0x80 ? 3 : 0
        case 0xE2:  // U+2000–200A, U+2028, U+2029, U+202F, U+205F
            guard index + 2 < count else { return 0 }
            let second = input[index + 1]
            let third = input[index + 2]
            if second == 0x80 {
                return (0x80...0x8A).contains(third) || third == 0xA8 || third == 0xA9 || third == 0xAF ? 3 : 0
            }
            return second == 0x81 && third == 0x9F ? 3 : 0
        case 0xE3:  // U+3000
            guard index + 2 < count else { return 0 }
            return input[index + 1] == 0x80 && input[index + 2] == 0x80 ? 3 : 0
        default:
            return 0
        }
    }

    /// `text` without leading and trailing whitespace; `nil` when nothing is left.
    static func trimmed(_ text: String) -> String? {
        let folded = fold(text)
        return folded.isEmpty ? nil : folded
    }
}
