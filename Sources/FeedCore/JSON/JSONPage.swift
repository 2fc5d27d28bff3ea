public import Foundation

/// Decoding helpers for JSON page bodies: located errors, bounded nesting, raw item bytes.
///
/// `JSONPage` first scans the body once (without building a tree) to find the byte range of
/// every element of the item array; each element is then decoded on its own, so an item keeps
/// its original bytes (``FeedItem/raw``) and an error names the element's JSON path.
public enum JSONPage {
    /// The deepest nesting accepted in a body.
    public static let maxDepth = 64

    /// One element of the item array: its decoded value, its original bytes, its index.
    public struct Element<Value: Sendable>: Sendable {
        /// The decoded element.
        public var value: Value
        /// The element's bytes exactly as sent.
        public var raw: Data
        /// Its index in the array.
        public var index: Int
    }

    /// Checks that the page looks like JSON at all (not an HTML error page served as 200).
    public static func requireJSON(_ page: FetchedPage) throws {
        let body = page.response.body
        if let type = page.response.headers["Content-Type"]?.lowercased(),
            type.contains("html") || type.hasPrefix("text/plain") || type.contains("xml")
        {
            throw PageDecodeError(path: "$", "expected a JSON body, got Content-Type '\(type)'")
        }
        guard let first = body.first(where: { !($0 == 32 || $0 == 9 || $0 == 10 || $0 == 13) }) else {
            throw PageDecodeError(path: "$", "expected a JSON body, got an empty body")
        }
        if first == UInt8(ascii: "<") {
            throw PageDecodeError(path: "$", "expected a JSON body, got markup starting with '<'")
        }
    }

    /// Decodes every element of the array at `path` (object keys from the top; empty = the body
    /// itself is the array) as `T`.
    public static func elements<T: Decodable & Sendable>(
        _ type: T.Type, in page: FetchedPage, at path: [String] = []
    ) throws -> [Element<T>] {
        try requireJSON(page)
        let body = page.response.body
        return try body.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> [Element<T>] in
            let bytes = buffer.bindMemory(to: UInt8.self)
            var scanner = JSONScanner(bytes: bytes)
            let ranges = try scanner.arrayElements(at: path)
            let decoder = JSONDecoder()
            var out: [Element<T>] = []
            out.reserveCapacity(ranges.count)
            let prefix = "$" + path.map { ".\($0)" }.joined()
            for (index, range) in ranges.enumerated() {
                // A slice of the body, not a copy: the items of a page share its bytes.
                let raw = body[body.startIndex + range.lowerBound..<body.startIndex + range.upperBound]
                do {
                    out.append(Element(value: try decoder.decode(T.self, from: raw), raw: raw, index: index))
                } catch let error as DecodingError {
                    let path = "\(prefix)[\(index)]"
                    if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
                        let precise = diagnose(raw, path: path, bodyOffset: range.lowerBound)
                    {
                        throw precise
                    }
                    throw describe(error, prefix: path)
                }
            }
            return out
        }
    }

    /// Decodes every element of the array at `path` with `read`, a single-pass decoder written
    /// against ``JSONReader``; when it cannot decode the page exactly as `T`'s `Decodable`
    /// conformance would (it threw ``JSONReader/Unsupported``), decodes the page through that
    /// conformance instead (``elements(_:in:at:)``), which gives the same elements or the same
    /// located ``PageDecodeError``.
    ///
    /// `read` must consume exactly one value, and give what `T(from:)` gives for it.
    public static func elements<T: Decodable & Sendable>(
        _ type: T.Type, in page: FetchedPage, at path: [String] = [],
        reading read: (inout JSONReader) throws(JSONReader.Unsupported) -> T
    ) throws -> [Element<T>] {
        if let elements = readElements(in: page, at: path, reading: read) { return elements }
        return try elements(type, in: page, at: path)
    }

    /// The elements of the array at `path` decoded by `read` in one pass over the body, each with
    /// its original bytes; `nil` when the body is not strict JSON with an array there, or `read`
    /// threw ``JSONReader/Unsupported`` for an element (the caller then decodes the page through
    /// `Decodable`, which also reports any error precisely).
    public static func readElements<T: Sendable>(
        in page: FetchedPage, at path: [String] = [],
        reading read: (inout JSONReader) throws(JSONReader.Unsupported) -> T
    ) -> [Element<T>]? {
        guard (try? requireJSON(page)) != nil else { return nil }
        let body = page.response.body
        return body.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> [Element<T>]? in
            let bytes = buffer.bindMemory(to: UInt8.self)
            var scanner = JSONScanner(bytes: bytes)
            guard (try? scanner.seekArray(at: path)) != nil else { return nil }
            var reader = JSONReader(bytes: bytes, index: scanner.index)
            do throws(JSONReader.Unsupported) {
                var out: [Element<T>] = []
                var array = try reader.beginArray()
                while try reader.nextElement(&array) {
                    let start = reader.index
                    let value = try read(&reader)
                    // A slice of the body, not a copy: the items of a page share its bytes.
                    let raw = body[body.startIndex + start..<body.startIndex + reader.index]
                    out.append(Element(value: value, raw: raw, index: out.count))
                }
                if path.isEmpty {
                    // Nothing but whitespace may follow a top-level array.
                    guard (try? reader.peek()) == nil else { return nil }
                }
                return out
            } catch {
                return nil
            }
        }
    }

    /// The whole body as a ``JSONValue`` and the elements of the array at `path` in it, each with
    /// its original bytes when `path` is made of object keys only (else re-serialised).
    ///
    /// - Throws: ``PageDecodeError`` naming the path when the body is not JSON or the value at
    ///   `path` is absent or not an array.
    public static func values(in page: FetchedPage, at path: JSONPath) throws -> (body: JSONValue, elements: [Element<JSONValue>]) {
        try requireJSON(page)
        let body = try JSONValue.parse(page.response.body)
        let found: JSONValue?
        do {
            found = try path.evaluate(body)
        } catch {
            throw PageDecodeError(path: error.path, error.message)
        }
        guard let found else {
            throw PageDecodeError(path: path.description, "expected an array of items, found nothing (absent or null)")
        }
        guard case .array(let values) = found else {
            throw PageDecodeError(path: path.description, "expected an array of items, found \(found.kindDescription)")
        }
        var raws: [Data]?
        if let keys = path.keys {
            raws = try page.response.body.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> [Data] in
                let bytes = buffer.bindMemory(to: UInt8.self)
                var scanner = JSONScanner(bytes: bytes)
                return try scanner.arrayElements(at: keys).map { Data(bytes[$0]) }
            }
        }
        if raws?.count != values.count { raws = nil }
        let elements = values.enumerated().map { index, value in
            Element(value: value, raw: raws?[index] ?? value.serialized, index: index)
        }
        return (body, elements)
    }

    /// The integer value of the top-level member `key` of an object body (`nil` when absent or null).
    public static func integerMember(_ key: String, in page: FetchedPage) throws -> Int? {
        let body = page.response.body
        return try body.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int? in
            let bytes = buffer.bindMemory(to: UInt8.self)
            var scanner = JSONScanner(bytes: bytes)
            guard let range = try scanner.member(key) else { return nil }
            let text = String(decoding: bytes[range], as: UTF8.self)
            if text == "null" { return nil }
            guard let value = Int(text) else {
                throw PageDecodeError(path: "$.\(key)", "expected an integer, found \(text.prefix(40))")
            }
            return value
        }
    }

    /// Why `raw` (one element, at `path`, starting `bodyOffset` bytes into the body) is not JSON,
    /// when Foundation's decoder only says it is not: the first syntax error with its byte offset
    /// in the body, the first byte that is not UTF-8, or a number too large for any Swift
    /// integer or double, with its path. `nil` when none of these is found.
    static func diagnose(_ raw: Data, path: String, bodyOffset: Int) -> PageDecodeError? {
        let bytes = [UInt8](raw)
        var parser = JSONValueParser(bytes: bytes)
        parser.offset = bodyOffset
        let value: JSONValue
        do {
            value = try parser.document()
        } catch {
            return PageDecodeError(path: path, error.message)
        }
        var decoder = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var consumed = 0
        decoding: while true {
            switch decoder.parseScalar(from: &iterator) {
            case .valid(let scalar): consumed += scalar.count
            case .emptyInput: break decoding
            case .error:
                return PageDecodeError(path: path, "malformed JSON: invalid UTF-8 at byte \(bodyOffset + consumed)")
            }
        }
        if let (numberPath, text) = outOfRangeNumber(in: value, path: path) {
            let shown = text.count > 40 ? text.prefix(40) + "…" : Substring(text)
            return PageDecodeError(path: numberPath, "number \(shown) is out of range")
        }
        return nil
    }

    /// The first number in `value` that fits neither `Int64`, `UInt64` nor a finite `Double`
    /// (an integer literal must fit an integer type), with its path.
    private static func outOfRangeNumber(in value: JSONValue, path: String) -> (String, String)? {
        switch value {
        case .number(let text):
            let isInteger = !text.contains { $0 == "." || $0 == "e" || $0 == "E" }
            let fits = isInteger ? (Int64(text) != nil || UInt64(text) != nil) : (Double(text)?.isFinite ?? false)
            return fits ? nil : (path, text)
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let found = outOfRangeNumber(in: item, path: "\(path)[\(index)]") { return found }
            }
            return nil
        case .object(let members):
            for member in members {
                if let found = outOfRangeNumber(in: member.value, path: "\(path).\(member.key)") { return found }
            }
            return nil
        default:
            return nil
        }
    }

    /// A decoding error as a ``PageDecodeError`` with a JSON path under `prefix`.
    public static func describe(_ error: DecodingError, prefix: String = "$") -> PageDecodeError {
        func path(_ keys: [any CodingKey]) -> String {
            prefix + keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .typeMismatch(let type, let context):
            return PageDecodeError(path: path(context.codingPath), "expected \(typeName(type)): \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            return PageDecodeError(path: path(context.codingPath), "expected \(typeName(type)), found null")
        case .keyNotFound(let key, let context):
            return PageDecodeError(path: path(context.codingPath), "missing required key '\(key.stringValue)'")
        case .dataCorrupted(let context):
            var message = context.debugDescription
            if context.codingPath.isEmpty { message += " (invalid syntax, or a number out of range)" }
            if let underlying = context.underlyingError { message += " (\(underlying))" }
            return PageDecodeError(path: path(context.codingPath), "malformed JSON: \(message)")
        @unknown default:
            return PageDecodeError(path: prefix, "could not decode: \(error)")
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "a boolean"
        default: return String(describing: type)
        }
    }
}

/// A single-pass JSON structure scanner: finds value boundaries without building values.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private func error(_ path: String, _ message: String) -> PageDecodeError {
        PageDecodeError(path: path, message)
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            let c = bytes[index]
            guard c == 32 || c == 9 || c == 10 || c == 13 else { return }
            index += 1
        }
    }

    private func kind(_ c: UInt8) -> String {
        switch c {
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "n"): return "null"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        default: return "a number"
        }
    }

    /// Ranges of the elements of the array found by following object keys `path`.
    mutating func arrayElements(at path: [String]) throws -> [Range<Int>] {
        let described = try seekArray(at: path)
        index += 1
        var ranges: [Range<Int>] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                skipSpace()
                let start = index
                try skipValue(depth: 1, path: "\(described)[\(ranges.count)]")
                ranges.append(start..<index)
                skipSpace()
                guard index < bytes.count else { throw error(described, "malformed JSON: unterminated array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "]") else {
                    throw error("\(described)[\(ranges.count - 1)]", "malformed JSON: expected ',' or ']' at byte \(index)")
                }
                index += 1
                break
            }
        }
        if path.isEmpty {
            skipSpace()
            guard index == bytes.count else { throw error("$", "malformed JSON: unexpected data after the array at byte \(index)") }
        }
        return ranges
    }

    /// Follows object keys `path` to the array there, stopping at its `[`; returns the path in
    /// JSON-path notation (`$.photos`).
    mutating func seekArray(at path: [String]) throws -> String {
        var described = "$"
        for key in path {
            skipSpace()
            guard index < bytes.count else { throw error(described, "expected an object, found end of input") }
            guard bytes[index] == UInt8(ascii: "{") else {
                throw error(described, "expected an object with key '\(key)', found \(kind(bytes[index]))")
            }
            guard try seek(member: key, path: described) else {
                throw error(described, "missing required key '\(key)'")
            }
            described += ".\(key)"
        }
        skipSpace()
        guard index < bytes.count else { throw error(described, "expected an array, found end of input") }
        guard bytes[index] == UInt8(ascii: "[") else {
            throw error(described, "expected an array, found \(kind(bytes[index]))")
        }
        return described
    }

    /// The range of the top-level member `key`'s value, when the body is an object.
    mutating func member(_ key: String) throws -> Range<Int>? {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        guard try seek(member: key, path: "$") else { return nil }
        skipSpace()
        let start = index
        try skipValue(depth: 1, path: "$.\(key)")
        return start..<index
    }

    /// From a `{`, moves to the value of `key`; returns false (at the end of the object) if absent.
    private mutating func seek(member key: String, path: String) throws -> Bool {
        index += 1  // '{'
        let wanted = Array(key.utf8)
        while true {
            skipSpace()
            guard index < bytes.count else { throw error(path, "malformed JSON: unterminated object") }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return false
            }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw error(path, "malformed JSON: expected a key at byte \(index)")
            }
            let keyStart = index + 1
            try skipString(path: path)
            let keyRange = keyStart..<(index - 1)
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error(path, "malformed JSON: expected ':' at byte \(index)")
            }
            index += 1
            skipSpace()
            if keyRange.count == wanted.count, bytes[keyRange].elementsEqual(wanted) { return true }
            try skipValue(depth: 2, path: path)
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1 }
        }
    }

    private mutating func skipString(path: String) throws {
        index += 1  // opening quote
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            index += 1
            if c == UInt8(ascii: "\"") { return }
        }
        throw error(path, "malformed JSON: unterminated string")
    }

    /// Skips one value, checking nesting depth and bracket balance (contents are validated later
    /// by the decoder).
    private mutating func skipValue(depth: Int, path: String) throws {
        guard index < bytes.count else { throw error(path, "malformed JSON: unexpected end of input") }
        var stack: [UInt8] = []
        repeat {
            guard index < bytes.count else { throw error(path, "malformed JSON: unexpected end of input (truncated body?)") }
            let c = bytes[index]
            switch c {
            case UInt8(ascii: "\""):
                try skipString(path: path)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                stack.append(c)
                guard depth + stack.count <= JSONPage.maxDepth else {
                    throw error(path, "JSON nested deeper than \(JSONPage.maxDepth) levels")
                }
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard let open = stack.popLast(),
                    (open == UInt8(ascii: "{") && c == UInt8(ascii: "}")) || (open == UInt8(ascii: "[") && c == UInt8(ascii: "]"))
                else { throw error(path, "malformed JSON: unbalanced '\(Character(UnicodeScalar(c)))' at byte \(index)") }
                index += 1
            default:
                if stack.isEmpty {
                    // A scalar: up to the next delimiter.
                    let start = index
                    while index < bytes.count {
                        let d = bytes[index]
                        if d == UInt8(ascii: ",") || d == UInt8(ascii: "]") || d == UInt8(ascii: "}") || d == 32 || d == 9
                            || d == 10 || d == 13
                        {
                            break
                        }
                        index += 1
                    }
                    guard index > start else { throw error(path, "malformed JSON: expected a value at byte \(index)") }
                } else {
                    index += 1
                }
            }
        } while !stack.isEmpty
    }
}
