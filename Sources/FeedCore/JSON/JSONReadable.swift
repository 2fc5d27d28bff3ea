/// A value that ``JSONReader`` reads in one pass exactly as its `Decodable` conformance decodes it.
///
/// `String`, `Int`, `Bool`, arrays and string-keyed dictionaries of readable values conform here;
/// a wire object conforms through ``JSONObjectReadable``, whose one field table drives both paths.
/// `read(from:)` consumes exactly one value and throws ``JSONReader/Unsupported`` for anything it
/// does not decode exactly as `JSONDecoder` would (null included: optionality is the field's).
public protocol JSONReadable: Decodable, Sendable {
    /// Reads one non-null value.
    static func read(from reader: inout JSONReader) throws(JSONReader.Unsupported) -> Self
}

/// A wire object (a source's DTO) declared once, by its ``fields`` table: the table drives the
/// single-pass ``JSONReader`` decoder (``init(reading:)``) and the `Decodable` fallback (the
/// `init(from:)` given here, which replaces the synthesised one), so adding a field is one
/// property and one table entry.
public protocol JSONObjectReadable: JSONReadable {
    /// The object's fields, in declaration order (the order `Decodable` decodes them in).
    static var fields: JSONFields<Self> { get }
}

extension JSONObjectReadable {
    /// Reads one object (not null) through ``fields``.
    @inlinable
    public static func read(from reader: inout JSONReader) throws(JSONReader.Unsupported) -> Self {
        try fields.read(&reader)
    }

    /// Reads one object (not null) through ``fields``, for ``JSONPage/elements(_:in:at:reading:)``.
    @inlinable
    public init(reading reader: inout JSONReader) throws(JSONReader.Unsupported) {
        self = try Self.fields.read(&reader)
    }

    /// Decodes one object through ``fields`` as a synthesised `init(from:)` would: each field in
    /// table order, required ones with `decode`, optional ones with `decodeIfPresent`.
    public init(from decoder: any Decoder) throws {
        self = try Self.fields.decode(from: decoder)
    }
}

extension String: JSONReadable {
    /// A string (not null).
    @inlinable
    public static func read(from reader: inout JSONReader) throws(JSONReader.Unsupported) -> String {
        try reader.readString()
    }
}

extension Int: JSONReadable {
    /// An integer without fraction or exponent (not null).
    @inlinable
    public static func read(from reader: inout JSONReader) throws(JSONReader.Unsupported) -> Int {
        try reader.readInt()
    }
}

extension Bool: JSONReadable {
    /// `true` or `false` (not null).
    @inlinable
    public static func read(from reader: inout JSONReader) throws(JSONReader.Unsupported) -> Bool {
        try reader.readBool()
    }
}

extension Array: JSONReadable where Element: JSONReadable {
    /// An array (not null) of non-null elements.
    @inlinable
    public static func read(from reader: inout JSONReader) throws(JSONReader.Unsupported) -> [Element] {
        var elements: [Element] = []
        var array = try reader.beginArray()
        while try reader.nextElement(&array) { elements.append(try Element.read(from: &reader)) }
        return elements
    }
}

extension Dictionary: JSONReadable where Key == String, Value: JSONReadable {
    /// An object (not null) of non-null values by name; a repeated name is left to `Decodable`.
    @inlinable
    public static func read(from reader: inout JSONReader) throws(JSONReader.Unsupported) -> [String: Value] {
        var values: [String: Value] = [:]
        var object = try reader.beginObject()
        while let key = try reader.nextKey(&object) {
            let name = try reader.string(of: key)
            guard values[name] == nil else { throw JSONReader.Unsupported() }
            values[name] = try Value.read(from: &reader)
        }
        return values
    }
}
