/// A forward-only, single-pass reader over a JSON page body, for element decoders (see
/// ``JSONPage/elements(_:in:at:reading:)``).
///
/// A source does not drive it by hand: its DTO declares its members once in a ``JSONFields``
/// table (``JSONObjectReadable``), which walks each element once — ``beginObject()`` and
/// ``nextKey(_:)`` over its members, ``JSONKeySet/index(of:in:)`` to pick the wanted ones, a typed
/// read (``readString()``, ``readInt()``, …) for each, and ``skipValue()`` for the rest. Nothing
/// else is built.
///
/// The reader is *strict*: it accepts only RFC 8259 JSON (valid UTF-8, no control characters in
/// strings, valid escapes and numbers, no trailing commas) and only values it can decode exactly
/// as `JSONDecoder` does. Anything else — a type mismatch, a missing or null required field, an
/// integer with a fraction or an exponent, a duplicated wanted key, an escaped key, nesting deeper
/// than ``JSONPage/maxDepth`` — throws ``Unsupported``, and ``JSONPage`` then decodes the page
/// through the element type's `Decodable` conformance instead, which yields the same items or the
/// same located error as before. So a page the reader accepts decodes exactly as through Codable,
/// and every other page decodes (or fails) exactly as through Codable.
public struct JSONReader {
    /// The reader met something it does not decode exactly as `JSONDecoder` would; the page is
    /// decoded through `Decodable` instead.
    public struct Unsupported: Error, Sendable {
        /// Creates the signal.
        public init() {}
    }

    /// Marks wanted field number `field` (below 32) as read in `seen`; a second occurrence of a
    /// wanted key throws ``Unsupported`` (`JSONDecoder` keeps the last one: that is left to it).
    @inline(__always)
    public static func claim(_ field: Int, in seen: inout UInt32) throws(Unsupported) {
        let bit: UInt32 = 1 << UInt32(field)
        guard seen & bit == 0 else { throw Unsupported() }
        seen |= bit
    }

    /// Iteration state of one object or array (whether its first entry has been read).
    public struct Container {
        fileprivate var first = true
    }

    /// A member name: its bytes (between the quotes) in the body.
    public struct Key {
        /// Offset of the first byte after the opening quote.
        public let start: Int
        /// Length in bytes, escapes included.
        public let count: Int
        /// Whether the name contains a backslash escape.
        public let hasEscapes: Bool
    }

    @usableFromInline let base: UnsafePointer<UInt8>
    @usableFromInline let count: Int
    /// Offset of the next byte to read.
    public private(set) var index: Int
    /// Objects and arrays currently open.
    public private(set) var depth = 0

    /// A reader over `bytes` (which must outlive it), starting at `index`.
    public init(bytes: UnsafeBufferPointer<UInt8>, index: Int = 0) {
        base = bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!
        count = bytes.count
        self.index = index
    }

    // MARK: Structure

    @inline(__always)
    mutating func skipSpace() {
        while index < count {
            let c = base[index]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            index += 1
        }
    }

    /// The first byte of the next value (after whitespace), without consuming it.
    @inline(__always)
    public mutating func peek() throws(Unsupported) -> UInt8 {
        skipSpace()
        guard index < count else { throw Unsupported() }
        return base[index]
    }

    @inline(__always)
    mutating func expect(_ byte: UInt8) throws(Unsupported) {
        guard try peek() == byte else { throw Unsupported() }
        index += 1
    }

    private mutating func open() throws(Unsupported) {
        depth += 1
        guard depth <= JSONPage.maxDepth else { throw Unsupported() }
    }

    /// Consumes `{`.
    public mutating func beginObject() throws(Unsupported) -> Container {
        try expect(0x7B)
        try open()
        return Container()
    }

    /// The next member's name, positioned at its value (which the caller must read or skip), or
    /// `nil` after consuming the object's `}`.
    public mutating func nextKey(_ object: inout Container) throws(Unsupported) -> Key? {
        var c = try peek()
        if c == 0x7D {  // }  (after a comma, the key check below refuses it)
            index += 1
            depth -= 1
            return nil
        }
        if !object.first {
            guard c == 0x2C else { throw Unsupported() }  // ,
            index += 1
            c = try peek()
        }
        object.first = false
        guard c == 0x22 else { throw Unsupported() }
        index += 1
        let start = index
        let escapes = try scanString()
        let key = Key(start: start, count: index - 1 - start, hasEscapes: escapes)
        try expect(0x3A)  // :
        return key
    }

    /// Consumes `[`.
    public mutating func beginArray() throws(Unsupported) -> Container {
        try expect(0x5B)
        try open()
        return Container()
    }

    /// Whether another element follows (the reader is then at it); `false` after consuming `]`.
    public mutating func nextElement(_ array: inout Container) throws(Unsupported) -> Bool {
        let c = try peek()
        if c == 0x5D {  // ]
            index += 1
            depth -= 1
            return false
        }
        if array.first {
            array.first = false
        } else {
            guard c == 0x2C else { throw Unsupported() }
            index += 1
            skipSpace()
        }
        return true
    }

    /// Consumes a `null` if one is next; `true` if it did.
    public mutating func readNull() throws(Unsupported) -> Bool {
        guard try peek() == 0x6E else { return false }
        try literal("null")
        return true
    }

    private mutating func literal(_ word: StaticString) throws(Unsupported) {
        let n = word.utf8CodeUnitCount
        guard index + n <= count else { throw Unsupported() }
        let bytes = word.utf8Start
        for offset in 0..<n where base[index + offset] != bytes[offset] { throw Unsupported() }
        index += n
    }

    // MARK: Scalars

    /// A string (not null).
    public mutating func readString() throws(Unsupported) -> String {
        guard try peek() == 0x22 else { throw Unsupported() }
        index += 1
        let start = index
        if try scanString() {
            return try unescape(start..<(index - 1))
        }
        return String(decoding: UnsafeBufferPointer(start: base + start, count: index - 1 - start), as: UTF8.self)
    }

    /// A string, or `nil` for null.
    public mutating func readStringOrNull() throws(Unsupported) -> String? {
        try readNull() ? nil : try readString()
    }

    /// An integer written without fraction or exponent that fits in `Int` (not null).
    public mutating func readInt() throws(Unsupported) -> Int {
        var c = try peek()
        let negative = c == 0x2D
        if negative {
            index += 1
            guard index < count else { throw Unsupported() }
            c = base[index]
        }
        guard c >= 0x30, c <= 0x39 else { throw Unsupported() }
        var value = 0
        if c == 0x30 {
            index += 1
        } else {
            while index < count {
                let d = base[index]
                guard d >= 0x30, d <= 0x39 else { break }
                // Accumulate negatively so Int.min parses; overflow is left to Codable.
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) = times.subtractingReportingOverflow(Int(d &- 0x30))
                guard !o1, !o2 else { throw Unsupported() }
                value = next
                index += 1
            }
        }
        if index < count {
            let d = base[index]
            // A fraction, an exponent or more digits after a leading zero: Codable decides.
            guard d != 0x2E, d != 0x65, d != 0x45, !(d >= 0x30 && d <= 0x39) else { throw Unsupported() }
        }
        if negative { return value }
        guard value != Int.min else { throw Unsupported() }
        return -value
    }

    /// An integer, or `nil` for null.
    public mutating func readIntOrNull() throws(Unsupported) -> Int? {
        try readNull() ? nil : try readInt()
    }

    /// A boolean (not null).
    public mutating func readBool() throws(Unsupported) -> Bool {
        switch try peek() {
        case 0x74: try literal("true"); return true
        case 0x66: try literal("false"); return false
        default: throw Unsupported()
        }
    }

    /// A boolean, or `nil` for null.
    public mutating func readBoolOrNull() throws(Unsupported) -> Bool? {
        try readNull() ? nil : try readBool()
    }

    /// The name of `key` as a string, escapes decoded.
    public func string(of key: Key) throws(Unsupported) -> String {
        if key.hasEscapes { return try unescape(key.start..<(key.start + key.count)) }
        return String(decoding: UnsafeBufferPointer(start: base + key.start, count: key.count), as: UTF8.self)
    }

    /// Whether `key` is exactly `name` (an escaped key throws: it could spell any name).
    public func key(_ key: Key, is name: StaticString) throws(Unsupported) -> Bool {
        guard !key.hasEscapes else { throw Unsupported() }
        guard key.count == name.utf8CodeUnitCount else { return false }
        let bytes = name.utf8Start
        for offset in 0..<key.count where base[key.start + offset] != bytes[offset] { return false }
        return true
    }

    // MARK: Skipping

    /// Skips one value of any kind, checking it is strict JSON.
    public mutating func skipValue() throws(Unsupported) {
        switch try peek() {
        case 0x22:
            index += 1
            _ = try scanString()
        case 0x7B:
            var object = try beginObject()
            while try nextKey(&object) != nil { try skipValue() }
        case 0x5B:
            var array = try beginArray()
            while try nextElement(&array) { try skipValue() }
        case 0x74: try literal("true")
        case 0x66: try literal("false")
        case 0x6E: try literal("null")
        default: try skipNumber()
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func skipNumber() throws(Unsupported) {
        if index < count, base[index] == 0x2D { index += 1 }
        guard index < count else { throw Unsupported() }
        if base[index] == 0x30 {
            index += 1
        } else {
            guard try digits() > 0 else { throw Unsupported() }
        }
        if index < count, base[index] == 0x2E {
            index += 1
            guard try digits() > 0 else { throw Unsupported() }
        }
        if index < count, base[index] == 0x65 || base[index] == 0x45 {
            index += 1
            if index < count, base[index] == 0x2B || base[index] == 0x2D { index += 1 }
            guard try digits() > 0 else { throw Unsupported() }
        }
    }

    private mutating func digits() throws(Unsupported) -> Int {
        let start = index
        while index < count, base[index] >= 0x30, base[index] <= 0x39 { index += 1 }
        return index - start
    }

    // MARK: Strings

    /// From just after an opening quote to just after the closing one; returns whether the string
    /// has escapes. Checks escapes, control characters and UTF-8.
    private mutating func scanString() throws(Unsupported) -> Bool {
        var escapes = false
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while true {
            // Eight bytes at a time while none is a quote, a backslash, a control or non-ASCII byte.
            while index + 8 <= count {
                let x = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let q = x ^ (ones &* 0x22)
                let b = x ^ (ones &* 0x5C)
                let special = (((q &- ones) & ~q) | ((b &- ones) & ~b) | ((x &- ones &* 0x20) & ~x) | x) & highs
                if special != 0 { break }
                index += 8
            }
            guard index < count else { throw Unsupported() }
            let c = base[index]
            if c == 0x22 {
                index += 1
                return escapes
            }
            if c == 0x5C {
                escapes = true
                index += 1
                guard index < count else { throw Unsupported() }
                switch base[index] {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74:
                    index += 1
                case 0x75:
                    guard index + 4 < count else { throw Unsupported() }
                    for offset in 1...4 where Self.hexValue(base[index + offset]) == nil { throw Unsupported() }
                    index += 5
                default:
                    throw Unsupported()
                }
            } else if c < 0x20 {
                throw Unsupported()
            } else if c < 0x80 {
                index += 1
            } else {
                index += try Self.utf8SequenceLength(base, at: index, count: count)
            }
        }
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case 0x30...0x39: UInt32(c - 0x30)
        case 0x41...0x46: UInt32(c - 0x41 + 10)
        case 0x61...0x66: UInt32(c - 0x61 + 10)
        default: nil
        }
    }

    /// The length of the well-formed UTF-8 sequence starting with a non-ASCII byte at `i`.
    static func utf8SequenceLength(_ p: UnsafePointer<UInt8>, at i: Int, count: Int) throws(Unsupported) -> Int {
        // Table 3-7 of the Unicode standard: the lead byte gives the length and the range of the
        // second byte (narrower after E0, ED, F0 and F4, which rules out overlong forms,
        // surrogates and scalars above U+10FFFF); later bytes are 80...BF.
        let (length, second): (Int, ClosedRange<UInt8>) =
            switch p[i] {
            case 0xC2...0xDF: (2, 0x80...0xBF)
            case 0xE0: (3, 0xA0...0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
            case 0xED: (3, 0x80...0x9F)
            case 0xF0: (4, 0x90...0xBF)
            case 0xF1...0xF3: (4, 0x80...0xBF)
            case 0xF4: (4, 0x80...0x8F)
            default: throw Unsupported()
            }
        guard i + length <= count, second.contains(p[i + 1]) else { throw Unsupported() }
        for k in 2..<length where !(0x80...0xBF).contains(p[i + k]) { throw Unsupported() }
        return length
    }

    /// The string between the quotes at `range` (already checked by ``scanString()``), unescaped.
    /// A lone surrogate escape throws: `JSONDecoder` refuses it.
    private func unescape(_ range: Range<Int>) throws(Unsupported) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var i = range.lowerBound
        func hex4(_ at: Int) -> UInt32 {
            var v: UInt32 = 0
            for k in 0..<4 { v = v << 4 | (Self.hexValue(base[at + k]) ?? 0) }
            return v
        }
        func append(_ scalar: UInt32) {
            switch scalar {
            case 0..<0x80:
                out.append(UInt8(scalar))
            case 0x80..<0x800:
                out.append(UInt8(0xC0 | scalar >> 6))
                out.append(UInt8(0x80 | scalar & 0x3F))
            case 0x800..<0x10000:
                out.append(UInt8(0xE0 | scalar >> 12))
                out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                out.append(UInt8(0x80 | scalar & 0x3F))
            default:
                out.append(UInt8(0xF0 | scalar >> 18))
                out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
                out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                out.append(UInt8(0x80 | scalar & 0x3F))
            }
        }
        while i < range.upperBound {
            let c = base[i]
            guard c == 0x5C else {
                out.append(c)
                i += 1
                continue
            }
            let e = base[i + 1]
            i += 2
            switch e {
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                let unit = hex4(i)
                i += 4
                switch unit {
                case 0xD800..<0xDC00:
                    // A high surrogate must be followed by an escaped low one.
                    guard i + 6 <= range.upperBound, base[i] == 0x5C, base[i + 1] == 0x75 else { throw Unsupported() }
                    let low = hex4(i + 2)
                    guard (0xDC00..<0xE000).contains(low) else { throw Unsupported() }
                    i += 6
                    append(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                case 0xDC00..<0xE000:
                    throw Unsupported()
                default:
                    append(unit)
                }
            default: out.append(e)  // " \ /
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The member names an element decoder wants, looked up by their bytes without making strings.
public struct JSONKeySet: Sendable {
    /// Names by length: (bytes, index in the list given at creation).
    private let byLength: [[([UInt8], Int)]]

    /// A set of names; ``index(of:in:)`` returns a name's position in `names`.
    public init(_ names: [String]) {
        let longest = names.map(\.utf8.count).max() ?? 0
        var table = [[([UInt8], Int)]](repeating: [], count: longest + 1)
        for (index, name) in names.enumerated() { table[name.utf8.count].append((Array(name.utf8), index)) }
        byLength = table
    }

    /// The position of `key` in the names, or `nil` when it is not wanted. An escaped key throws
    /// ``JSONReader/Unsupported``: it could spell a wanted name.
    public func index(of key: JSONReader.Key, in reader: JSONReader) throws(JSONReader.Unsupported) -> Int? {
        guard !key.hasEscapes else { throw JSONReader.Unsupported() }
        guard key.count < byLength.count else { return nil }
        let p = reader.base + key.start
        candidates: for (bytes, index) in byLength[key.count] {
            for offset in 0..<key.count where p[offset] != bytes[offset] { continue candidates }
            return index
        }
        return nil
    }
}
