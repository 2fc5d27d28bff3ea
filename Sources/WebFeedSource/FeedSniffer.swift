import Foundation

/// Looks at the start of a body to tell XML, JSON and HTML apart, before any parser runs.
enum FeedSniffer {
    /// What the body looks like.
    enum Kind: Equatable {
        case empty
        case json
        case xml
        /// An HTML page, with its `<title>` (printable, shortened) when the start holds one.
        case html(title: String?)
        /// Something else, with its first characters (printable, shortened).
        case other(String)
    }

    /// The sniffed kind and the charset to hand the parser.
    struct Result {
        var kind: Kind
        /// The Content-Type's `charset`, when the body has no byte-order mark (which wins).
        var declaredCharset: String?
        /// The body's byte-order mark, if any.
        var bom: String.Encoding?

        /// The body as UTF-8 for the JSON parser: a UTF-8 BOM dropped, UTF-16 transcoded.
        func utf8JSON(_ data: Data) throws(FeedParseError) -> Data {
            switch bom {
            case .utf8?: return data.dropFirst(3)
            case let encoding?:
                guard let text = String(data: data, encoding: encoding) else {
                    throw FeedParseError("the JSON body is not valid \(encoding == .utf16BigEndian ? "UTF-16BE" : "UTF-16LE")")
                }
                return Data(text.utf8)
            case nil: return data
            }
        }
    }

    /// Sniffs the first 8 KiB of `data`.
    static func sniff(_ data: Data, contentType: String?) -> Result {
        let bom = byteOrderMark(data)
        let charset = bom == nil ? contentType.flatMap(Self.charset(in:)) : nil
        let head = data.prefix(8192)
        let text: String
        switch bom {
        case .utf16BigEndian?, .utf16LittleEndian?:
            let even = head.prefix(head.count & ~1)
            text = String(data: even.dropFirst(2), encoding: bom!) ?? ""
        case .utf8?:
            text = String(decoding: head.dropFirst(3), as: UTF8.self)
        default:
            if head.count >= 2, head[head.startIndex] == 0 || head[head.startIndex + 1] == 0 {
                // UTF-16 without a BOM: let libxml2 autodetect it from `<?xml`.
                return Result(kind: .xml, declaredCharset: charset, bom: nil)
            }
            if let kind = head.withUnsafeBytes({ asciiKind(of: $0) }) {
                return Result(kind: kind, declaredCharset: charset, bom: bom)
            }
            text = String(decoding: head, as: UTF8.self)
        }
        return Result(kind: kind(of: text), declaredCharset: charset, bom: bom)
    }

    /// ``kind(of:)`` decided over the bytes of an ASCII-compatible start, without decoding it into
    /// a String and walking Characters (a quarter of a small feed's bytes are in its first 8 KiB):
    /// the usual `.xml`, `.json` and `.empty`. `nil` whenever the answer needs ``kind(of:)``
    /// itself: a byte above 0x7F where it skips whitespace or reads the root's name (Unicode
    /// whitespace and letters), a `<!DOCTYPE`, an HTML root (its title) or anything else.
    static func asciiKind(of bytes: UnsafeRawBufferPointer) -> Kind? {
        let count = bytes.count
        var index = 0
        /// Whether `literal` is at `index`.
        func at(_ literal: StaticString, _ index: Int) -> Bool {
            let length = literal.utf8CodeUnitCount
            guard index + length <= count else { return false }
            for offset in 0..<length where bytes[index + offset] != literal.utf8Start[offset] { return false }
            return true
        }
        /// The index just after the first `literal` from `index`, or `nil`.
        func after(_ literal: StaticString, from index: Int) -> Int? {
            var index = index
            while index < count {
                if at(literal, index) { return index + literal.utf8CodeUnitCount }
                index += 1
            }
            return nil
        }
        while true {
            skipping: while index < count {
                switch bytes[index] {
                case 0x09...0x0D, 0x20: index += 1
                case 0xEF where at("\u{FEFF}", index): index += 3
                case 0x80...: return nil
                default: break skipping
                }
            }
            if index == count { return .empty }
            if at("<?", index) {
                guard let end = after("?>", from: index + 2) else { return .xml }
                index = end
            } else if at("<!--", index) {
                guard let end = after("-->", from: index + 4) else { return .xml }
                index = end
            } else if at("<!", index) {
                return nil
            } else {
                break
            }
        }
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
        case UInt8(ascii: "<"):
            var end = index + 1
            while end < count {
                let byte = bytes[end]
                if byte >= 0x80 { return nil }
                guard (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-")
                else { break }
                end += 1
            }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(index + 1)..<end]), as: UTF8.self).lowercased()
            return name == "html" || name == "head" || name == "body" ? nil : .xml
        default: return nil
        }
    }

    /// The kind of a document starting with `text`.
    static func kind(of text: String) -> Kind {
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
            if rest.isEmpty { return .empty }
            if rest.hasPrefix("<?") {
                // A literal search over UTF-8 (Foundation's `range(of:)` would copy the head to UTF-16).
                guard let end = rest.utf8.firstRange(of: "?>".utf8) else { return .xml }
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("<!--") {
                guard let end = rest.utf8.firstRange(of: "-->".utf8) else { return .xml }
                rest = rest[end.upperBound...]
            } else if rest.prefix(9).lowercased() == "<!doctype" {
                let declaration = rest.prefix(while: { $0 != ">" }).lowercased()
                if declaration.dropFirst(9).drop(while: \.isWhitespace).hasPrefix("html") {
                    return .html(title: title(in: text))
                }
                return .xml
            } else {
                break
            }
        }
        if rest.first == "{" || rest.first == "[" { return .json }
        if rest.first == "<" {
            let name = rest.dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == ":" || $0 == "-" }.lowercased()
            if name == "html" || name == "head" || name == "body" { return .html(title: title(in: text)) }
            return .xml
        }
        return .other(printable(String(rest.prefix(40)), limit: 40))
    }

    /// The `<title>` of an HTML start, folded and shortened.
    static func title(in text: String) -> String? {
        guard let open = text.range(of: "<title", options: .caseInsensitive),
            let close = text.range(of: ">", range: open.upperBound..<text.endIndex),
            let end = text.range(of: "</title", options: .caseInsensitive, range: close.upperBound..<text.endIndex)
        else { return nil }
        let raw = HTMLText.plainText(String(text[close.upperBound..<end.lowerBound]))
        return raw.isEmpty ? nil : printable(raw, limit: 80)
    }

    /// `text` without control characters, cut to `limit` characters.
    static func printable(_ text: String, limit: Int) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.filter {
            !($0.properties.generalCategory == .control || $0.properties.generalCategory == .format)
        }))
        return cleaned.count > limit ? String(cleaned.prefix(limit - 1)) + "…" : cleaned
    }

    /// The encoding announced by a byte-order mark.
    static func byteOrderMark(_ data: Data) -> String.Encoding? {
        let bytes = Array(data.prefix(3))
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { return .utf8 }
        if bytes.count >= 2, bytes[0] == 0xFE, bytes[1] == 0xFF { return .utf16BigEndian }
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xFE { return .utf16LittleEndian }
        return nil
    }

    /// The `charset` parameter of a Content-Type, lowercased, when it names one libxml2 reads.
    static func charset(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \t\"'")).lowercased()
            return value.isEmpty ? nil : value
        }
        return nil
    }
}
