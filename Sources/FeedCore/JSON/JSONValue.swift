public import Foundation

/// A JSON document as a `Sendable` value: numbers keep their exact text, objects their key order.
///
/// Built by ``parse(_:)`` (a strict RFC 8259 parser with a nesting limit); read with
/// ``JSONPath``.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, exactly as written (`10270250`, `-1.5e3`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, members in document order.
    case object([Member])

    /// One member of an object.
    public struct Member: Sendable, Hashable {
        /// The member name, escapes decoded (not necessarily unique in its object).
        public var key: String
        /// Any JSON value, nested objects and arrays included.
        public var value: JSONValue

        /// The member `key: value`.
        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value of `key` when this is an object holding it (the last one if repeated).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// A human name for the kind of value, for "expected X, found Y" messages.
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The text of a string, number or boolean; `nil` for null, arrays and objects.
    public var scalarText: String? {
        switch self {
        case .string(let text): text
        case .number(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .null, .array, .object: nil
        }
    }

    /// The value as an integer: an integral number, or a string holding one.
    public var integerValue: Int? {
        switch self {
        case .number(let text), .string(let text):
            if let value = Int(text) { return value }
            if let double = Double(text), double.isFinite, double.rounded() == double, abs(double) < 9e15 {
                return Int(double)
            }
            return nil
        default:
            return nil
        }
    }

    /// The value as a floating-point number: a number, or a string holding one.
    public var doubleValue: Double? {
        switch self {
        case .number(let text), .string(let text): Double(text)
        default: nil
        }
    }

    /// Parses a complete JSON document.
    ///
    /// - Throws: ``PageDecodeError`` at `$` naming the byte offset of malformed input, or the
    ///   nesting limit (``JSONPage/maxDepth``) being exceeded.
    public static func parse(_ data: Data) throws(PageDecodeError) -> JSONValue {
        let bytes = [UInt8](data)
        var parser = JSONValueParser(bytes: bytes)
        return try parser.document()
    }

    /// The value serialised as compact JSON (numbers as written, keys in order).
    public var serialized: Data {
        var out: [UInt8] = []
        write(to: &out)
        return Data(out)
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let text): Self.appendQuoted(text, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.appendQuoted(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a JSON string literal, in UTF-8 (quotes, `\"`, `\\`, `\n`, `\r`, `\t`,
    /// `\u00XX` for other control characters; everything else as is).
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        // Runs of bytes that need no escape are appended whole: only ASCII bytes are ever escaped,
        // so cutting the UTF-8 at them never splits a character.
        text.withUTF8 { bytes in
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                appendEscape(byte, to: &out)
                start = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the escape of `byte` (`"`, `\\`, or a control character).
    private static func appendEscape(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
        case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
        default:
            out.append(contentsOf: "u00".utf8)
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0xF)])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

/// A recursive-descent JSON parser over bytes.
struct JSONValueParser {
    let bytes: [UInt8]
    var index = 0
    /// Added to byte offsets in messages (where `bytes` start in a larger body).
    var offset = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func failure(_ message: String) -> PageDecodeError {
        PageDecodeError(path: "$", "malformed JSON: \(message) at byte \(offset + index)")
    }

    mutating func document() throws(PageDecodeError) -> JSONValue {
        skipSpace()
        let value = try value(depth: 1)
        skipSpace()
        guard index == bytes.count else { throw failure("unexpected data after the value") }
        return value
    }

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 32 || bytes[index] == 9 || bytes[index] == 10 || bytes[index] == 13 {
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(PageDecodeError) -> JSONValue {
        guard depth <= JSONPage.maxDepth else {
            throw PageDecodeError(path: "$", "JSON nested deeper than \(JSONPage.maxDepth) levels")
        }
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [JSONValue.Member] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
                index += 1
                skipSpace()
                members.append(JSONValue.Member(key, try value(depth: depth + 1)))
                skipSpace()
                guard index < bytes.count else { throw failure("unterminated object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
                index += 1
                return .object(members)
            }
        case UInt8(ascii: "["):
            index += 1
            var items: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard index < bytes.count else { throw failure("unterminated array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
                index += 1
                return .array(items)
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return .number(try number())
        }
    }

    private mutating func literal(_ word: StaticString) throws(PageDecodeError) {
        let expected = word.withUTF8Buffer { Array($0) }
        guard index + expected.count <= bytes.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw failure("invalid literal")
        }
        index += expected.count
    }

    private mutating func number() throws(PageDecodeError) -> String {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure("expected a value") }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") { throw failure("leading zero in a number") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("expected digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("expected digits in the exponent") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func hex4() throws(PageDecodeError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("truncated \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt32
            switch byte {
            case 48...57: digit = UInt32(byte - 48)
            case 65...70: digit = UInt32(byte - 55)
            case 97...102: digit = UInt32(byte - 87)
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    private mutating func string() throws(PageDecodeError) -> String {
        index += 1  // opening quote
        // A string without escapes (most are) is one slice of the input: found in one scan and
        // decoded once, not copied a byte at a time.
        let run = plainRunEnd(from: index)
        if run < bytes.count, bytes[run] == UInt8(ascii: "\"") {
            let text = bytes.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0[index..<run]), as: UTF8.self)
            }
            index = run + 1
            return text
        }
        var out: [UInt8] = []
        out.append(contentsOf: bytes[index..<run])
        index = run
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw failure("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    {
                        let saved = index
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = saved
                        }
                    }
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw failure("invalid escape")
                }
            default:
                guard byte >= 0x20 else { throw failure("control character in a string") }
                let end = plainRunEnd(from: index + 1)
                out.append(contentsOf: bytes[index..<end])
                index = end
            }
        }
        throw failure("unterminated string")
    }

    /// The index of the first byte from `start` that ends a run of plain string bytes: a quote, a
    /// backslash or a control character (or the end of the input).
    private func plainRunEnd(from start: Int) -> Int {
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            end += 1
        }
        return end
    }
}
