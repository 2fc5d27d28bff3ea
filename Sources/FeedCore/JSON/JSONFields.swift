/// The one declaration of a wire object's fields (see ``JSONObjectReadable``): each entry names a
/// JSON member and the property it fills, and whether it is required follows from the property's
/// type (`String` is required, `String?` is not).
///
/// ```swift
/// static let fields = JSONFields<UserDTO>(UserDTO(login: ""), [
///     .field("login", \.login),
///     .field("html_url", \.htmlURL),
/// ])
/// ```
///
/// Reading starts from `blank` (whose required properties are placeholders that every successful
/// read overwrites), looks each member name up once and fills the property; a missing required
/// member, a null where none is allowed or a repeated member throws ``JSONReader/Unsupported`` so
/// the page is decoded through `Decodable` (``decode(from:)``) and keeps its precise errors.
public struct JSONFields<Object: Sendable>: Sendable {
    /// One member: its name and how to read and decode it into the object.
    public struct Field: Sendable {
        @usableFromInline let name: String
        @usableFromInline let required: Bool
        @usableFromInline let read: @Sendable (inout JSONReader, inout Object) throws(JSONReader.Unsupported) -> Void
        @usableFromInline let decode: @Sendable (KeyedDecodingContainer<JSONMemberKey>, inout Object) throws -> Void

        @usableFromInline
        init(
            name: String, required: Bool,
            read: @escaping @Sendable (inout JSONReader, inout Object) throws(JSONReader.Unsupported) -> Void,
            decode: @escaping @Sendable (KeyedDecodingContainer<JSONMemberKey>, inout Object) throws -> Void
        ) {
            self.name = name
            self.required = required
            self.read = read
            self.decode = decode
        }

        /// A required member: non-null, decoded with `decode`.
        @inlinable
        public static func field<Value: JSONReadable>(
            _ name: String, _ property: any WritableKeyPath<Object, Value> & Sendable
        ) -> Field {
            let key = JSONMemberKey(name)
            let store = Store<Value>(property)
            return Field(
                name: name, required: true,
                read: { (reader: inout JSONReader, object: inout Object) throws(JSONReader.Unsupported) in
                    store.set(try Value.read(from: &reader), in: &object)
                },
                decode: { container, object in object[keyPath: property] = try container.decode(Value.self, forKey: key) })
        }

        /// An optional member: absent or null is `nil`, decoded with `decodeIfPresent`.
        @inlinable
        public static func field<Value: JSONReadable>(
            _ name: String, _ property: any WritableKeyPath<Object, Value?> & Sendable
        ) -> Field {
            let key = JSONMemberKey(name)
            let store = Store<Value?>(property)
            return Field(
                name: name, required: false,
                read: { (reader: inout JSONReader, object: inout Object) throws(JSONReader.Unsupported) in
                    store.set(try reader.readNull() ? nil : try Value.read(from: &reader), in: &object)
                },
                decode: { container, object in
                    object[keyPath: property] = try container.decodeIfPresent(Value.self, forKey: key)
                })
        }
    }

    /// Writes one property: through its byte offset in `Object` when it is a stored property
    /// (`MemoryLayout.offset(of:)`, as fast as a direct store), else through the key path.
    @usableFromInline
    struct Store<Value>: Sendable {
        @usableFromInline let property: any WritableKeyPath<Object, Value> & Sendable
        @usableFromInline let offset: Int?

        @inlinable
        init(_ property: any WritableKeyPath<Object, Value> & Sendable) {
            self.property = property
            offset = MemoryLayout<Object>.offset(of: property)
        }

        @inlinable @inline(__always)
        func set(_ value: Value, in object: inout Object) {
            guard let offset else {
                object[keyPath: property] = value
                return
            }
            withUnsafeMutablePointer(to: &object) { pointer in
                UnsafeMutableRawPointer(pointer).advanced(by: offset).assumingMemoryBound(to: Value.self).pointee = value
            }
        }
    }

    @usableFromInline let blank: Object
    @usableFromInline let entries: [Field]
    @usableFromInline let keys: JSONKeySet
    @usableFromInline let requiredMask: UInt32

    /// The fields of an object type, starting each read from `blank`; at most 32 fields.
    public init(_ blank: Object, _ fields: [Field]) {
        precondition(fields.count <= 32, "JSONFields holds at most 32 fields")
        self.blank = blank
        entries = fields
        keys = JSONKeySet(fields.map(\.name))
        requiredMask = fields.indices.reduce(0) { mask, index in fields[index].required ? mask | 1 << UInt32(index) : mask }
    }

    /// Reads one object (not null) in a single pass; unknown members are skipped.
    @inlinable
    func read(_ reader: inout JSONReader) throws(JSONReader.Unsupported) -> Object {
        var object = blank
        var seen: UInt32 = 0
        var members = try reader.beginObject()
        while let key = try reader.nextKey(&members) {
            guard let index = try keys.index(of: key, in: reader) else {
                try reader.skipValue()
                continue
            }
            try JSONReader.claim(index, in: &seen)
            try entries[index].read(&reader, &object)
        }
        guard seen & requiredMask == requiredMask else { throw JSONReader.Unsupported() }
        return object
    }

    /// Decodes one object through `Decodable`, field by field in table order.
    func decode(from decoder: any Decoder) throws -> Object {
        let container = try decoder.container(keyedBy: JSONMemberKey.self)
        var object = blank
        for field in entries { try field.decode(container, &object) }
        return object
    }
}

/// A JSON member name as a `CodingKey`, for ``JSONFields``' `Decodable` path.
public struct JSONMemberKey: CodingKey, Sendable {
    /// The member name.
    public let stringValue: String
    /// Always `nil`: member names are strings.
    public var intValue: Int? { nil }

    /// The key for member `name`.
    public init(_ name: String) { stringValue = name }
    /// The key for member `stringValue`.
    public init(stringValue: String) { self.stringValue = stringValue }
    /// `nil`: member names are strings.
    public init?(intValue: Int) { nil }
}
