/// The stream cursor's token, written and read without Foundation's JSON coders: a served page
/// writes one token and reads another, and `JSONEncoder`, `JSONDecoder` and the base64 rewriting
/// around them cost about 4 % of its CPU.
///
/// The token is the base64url (no padding) of the position's JSON, keys sorted, as `JSONEncoder`
/// with `.sortedKeys` writes it: `{"f":…,"i":…,"k":…,"n":…,"p":…,"r":…,"v":1}` with `/` written
/// `\/` and control characters escaped. ``json(_:)`` writes exactly those bytes (a test compares it
/// with `JSONEncoder`); ``position(token:)`` reads exactly that shape and returns `nil` for
/// anything else, which ``StreamCursor/init(_:)`` then hands to `JSONDecoder`.
enum CursorCoding {
    /// The position's JSON bytes.
    static func json(_ position: StreamCursor.Position) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(72 + position.f.utf8.count + position.i.utf8.count)
        append(#"{"f":"#, to: &out)
        appendQuoted(position.f, to: &out)
        append(#","i":"#, to: &out)
        appendQuoted(position.i, to: &out)
        append(#","k":"#, to: &out)
        appendQuoted(position.k, to: &out)
        append(#","n":"#, to: &out)
        append(String(position.n), to: &out)
        append(#","p":"#, to: &out)
        append(String(position.p), to: &out)
        append(#","r":"#, to: &out)
        append(String(position.r), to: &out)
        append(#","v":"#, to: &out)
        append(String(position.v), to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static func append(_ text: String, to out: inout [UInt8]) {
        out.append(contentsOf: text.utf8)
    }

    /// `text` as a JSON string, escaped as `JSONEncoder` escapes it.
    private static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append(#"\""#, to: &out)
            case UInt8(ascii: "\\"): append(#"\\"#, to: &out)
            case UInt8(ascii: "/"): append(#"\/"#, to: &out)
            case 0x08: append(#"\b"#, to: &out)
            case 0x0C: append(#"\f"#, to: &out)
            case UInt8(ascii: "\n"): append(#"\n"#, to: &out)
            case UInt8(ascii: "\r"): append(#"\r"#, to: &out)
            case UInt8(ascii: "\t"): append(#"\t"#, to: &out)
            case 0..<0x20:
                append(#"\u00"#, to: &out)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// base64url without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(alphabet[Int(value & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(value >> 6 & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of base64url text (padding allowed); `nil` for any other character, a length
    /// no encoding has, or bits left over that are not zero.
    static func bytes(base64URL text: String) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        var padding = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0 else { return nil }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            values.append(value)
        }
        guard values.count % 4 != 1, padding <= 2 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let value = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6
                | UInt32(values[index + 3])
            out.append(UInt8(value >> 16 & 0xFF))
            out.append(UInt8(value >> 8 & 0xFF))
            out.append(UInt8(value & 0xFF))
            index += 4
        }
        switch values.count - index {
        case 2:
            guard values[index + 1] & 0xF == 0 else { return nil }
            out.append(values[index] << 2 | values[index + 1] >> 4)
        case 3:
            guard values[index + 2] & 0x3 == 0 else { return nil }
            let value = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6
            out.append(UInt8(value >> 16 & 0xFF))
            out.append(UInt8(value >> 8 & 0xFF))
        default: break
        }
        return out
    }

    /// The position in a token of exactly the shape ``json(_:)`` writes; `nil` for anything else.
    static func position(token: String) -> StreamCursor.Position? {
        guard let bytes = bytes(base64URL: token) else { return nil }
        var reader = Reader(bytes: bytes)
        guard reader.literal(#"{"f":"#), let f = reader.string(),
            reader.literal(#","i":"#), let i = reader.string(),
            reader.literal(#","k":"#), let k = reader.string(),
            reader.literal(#","n":"#), let n = reader.integer(),
            reader.literal(#","p":"#), let p = reader.integer(), let p = Int(exactly: p),
            reader.literal(#","r":"#), let r = reader.integer(), let r = Int(exactly: r),
            reader.literal(#","v":"#), let v = reader.integer(), let v = Int(exactly: v),
            reader.literal("}"), reader.atEnd
        else { return nil }
        return StreamCursor.Position(v: v, p: p, k: k, r: r, n: n, f: f, i: i)
    }

    /// Reads the JSON ``json(_:)`` writes, front to back.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
            index += count
            return true
        }

        /// A quoted string with the escapes ``CursorCoding/json(_:)`` writes (`\u` only below
        /// 0x20); `nil` for anything else, or text that is not UTF-8.
        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
                    case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r"))
                    case UInt8(ascii: "t"): out.append(UInt8(ascii: "\t"))
                    case UInt8(ascii: "u"):
                        guard index + 4 <= bytes.count, bytes[index] == UInt8(ascii: "0"), bytes[index + 1] == UInt8(ascii: "0"),
                            let high = hexValue(bytes[index + 2]), high < 2, let low = hexValue(bytes[index + 3])
                        else { return nil }
                        out.append(high << 4 | low)
                        index += 4
                    default: return nil
                    }
                case 0..<0x20: return nil
                default: out.append(byte)
                }
            }
            return nil
        }

        /// An integer as JSON writes one (optional `-`, digits, no leading zero).
        mutating func integer() -> Int64? {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits, index - digits == 1 || bytes[digits] != UInt8(ascii: "0") else { return nil }
            return Int64(String(decoding: bytes[start..<index], as: UTF8.self))
        }

        private func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
    }
}
