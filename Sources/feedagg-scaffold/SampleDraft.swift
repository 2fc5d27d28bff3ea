import Foundation

/// A JSON value as the sample holds it, numbers split into integers and fractions.
indirect enum JSONValue: Decodable {
    case null, bool(Bool), int(Int), double(Double), string(String)
    case object([String: JSONValue])
    case array([JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null; return }
        if let value = try? container.decode(Bool.self) { self = .bool(value); return }
        if let value = try? container.decode(Int.self) { self = .int(value); return }
        if let value = try? container.decode(Double.self) { self = .double(value); return }
        if let value = try? container.decode(String.self) { self = .string(value); return }
        if let value = try? container.decode([String: JSONValue].self) { self = .object(value); return }
        self = .array(try container.decode([JSONValue].self))
    }
}

/// One property of a drafted DTO: the JSON member, the Swift property and its type.
struct DraftField {
    /// The JSON member name (`html_url`).
    var key: String
    /// The Swift property (`htmlURL`).
    var property: String
    /// `String`, `Int`, `Bool`, or a nested DTO's name.
    var type: String
    /// Absent or null in some element.
    var optional: Bool
    /// The nested object's fields, for an author object (`user`, `owner`, `author`).
    var nested: [DraftField]?

    /// `String?` or `String`.
    var declaredType: String { optional ? "\(type)?" : type }
}

/// The DTO and item mapping drafted from sample elements (``draft(from:)``).
struct ItemDraft {
    /// The DTO's fields, in table order (at most 32: the JSONFields limit).
    var fields: [DraftField]
    /// Members left out, with the reason, written as comments in the DTO.
    var skipped: [String]
    /// The sample elements, re-encoded (sorted keys): the generated fixture's items.
    var elements: [Data]

    func field(_ keys: [String]) -> DraftField? {
        keys.lazy.compactMap { key in fields.first { $0.key == key } }.first
    }
    /// The field the item id comes from.
    var idField: DraftField? { field(["id", "node_id", "uuid", "guid", "html_url", "url"]) }
    /// The title's candidates, in order (string fields only).
    var titleFields: [DraftField] {
        ["name", "title", "tag_name"].compactMap { key in fields.first { $0.key == key && $0.type == "String" } }
    }
    var urlFields: [DraftField] {
        ["html_url", "url"].compactMap { key in fields.first { $0.key == key && $0.type == "String" } }
    }
    var summaryField: DraftField? {
        ["summary", "description", "body"].lazy.compactMap { key in self.fields.first { $0.key == key && $0.type == "String" } }.first
    }
    var publishedField: DraftField? {
        ["published_at", "created_at"].lazy.compactMap { key in self.fields.first { $0.key == key && $0.type == "String" } }.first
    }
    var updatedField: DraftField? { fields.first { $0.key == "updated_at" && $0.type == "String" } }
    var authorField: DraftField? {
        ["author", "user", "owner"].lazy.compactMap { key in
            self.fields.first { $0.key == key && ($0.nested != nil || $0.type == "String") }
        }.first
    }

    /// Keys read first, so the 32-field cap never drops what the mapping uses.
    static let mapped = [
        "id", "node_id", "uuid", "guid", "name", "title", "tag_name", "html_url", "url", "summary", "description", "body",
        "published_at", "created_at", "updated_at", "author", "user", "owner",
    ]

    /// Drafts the DTO from `elements` (JSON objects): a key's type is what its non-null values
    /// share; it is optional when null or missing in some element.
    static func draft(from elements: [[String: JSONValue]], encoded: [Data], typeNamePrefix: String) throws -> ItemDraft {
        guard !elements.isEmpty else { throw ScaffoldError("--sample holds no item objects") }
        var skipped: [String] = []
        let keys = Set(elements.flatMap(\.keys))
        let ordered = mapped.filter(keys.contains) + keys.subtracting(mapped).sorted()
        var fields: [DraftField] = []
        for key in ordered {
            guard let property = SwiftName.property(key) else {
                skipped.append("\(key): not a Swift identifier")
                continue
            }
            let values = elements.map { $0[key] ?? .null }
            let optional = values.contains { if case .null = $0 { return true } else { return false } }
            let present = values.filter { if case .null = $0 { return false } else { return true } }
            guard let type = scalarType(present) else {
                if ["author", "user", "owner"].contains(key), let nested = authorFields(present) {
                    fields.append(
                        DraftField(key: key, property: property, type: "\(typeNamePrefix)\(SwiftName.typeName(key))DTO",
                            optional: optional, nested: nested))
                } else {
                    skipped.append("\(key): \(describe(present)), not drafted")
                }
                continue
            }
            if type == "Double" {
                skipped.append("\(key): a number with a fraction (FeedCore's JSON reader reads String, Int and Bool)")
                continue
            }
            fields.append(DraftField(key: key, property: property, type: type, optional: optional))
        }
        if fields.count > 32 {
            skipped += fields[32...].map { "\($0.key): over the 32 fields a JSONFields table holds" }
            fields = Array(fields.prefix(32))
        }
        let draft = ItemDraft(fields: fields, skipped: skipped, elements: encoded)
        guard draft.idField != nil else {
            throw ScaffoldError("--sample: the items have no 'id' (nor node_id, uuid, guid, html_url, url) in every element")
        }
        return draft
    }

    /// The Swift type every value shares, or `nil` (objects, arrays, mixed, all null).
    static func scalarType(_ values: [JSONValue]) -> String? {
        var types = Set<String>()
        for value in values {
            switch value {
            case .bool: types.insert("Bool")
            case .int: types.insert("Int")
            case .double: types.insert("Double")
            case .string: types.insert("String")
            default: return nil
            }
        }
        if types == ["Int", "Double"] { return "Double" }
        return types.count == 1 ? types.first : nil
    }

    /// `login`, `avatar_url`, `html_url` (and `name`) of author objects, when `login` or `name` is a string.
    static func authorFields(_ values: [JSONValue]) -> [DraftField]? {
        let objects = values.compactMap { if case .object(let object) = $0 { return object } else { return nil } }
        guard objects.count == values.count, !objects.isEmpty else { return nil }
        var fields: [DraftField] = []
        for key in ["login", "name", "avatar_url", "html_url"] {
            let present = objects.compactMap { object -> String? in
                if case .string(let text) = object[key] { return text } else { return nil }
            }
            guard !present.isEmpty, let property = SwiftName.property(key) else { continue }
            fields.append(DraftField(key: key, property: property, type: "String", optional: present.count < objects.count))
        }
        return fields.contains { $0.key == "login" || $0.key == "name" } ? fields : nil
    }

    static func describe(_ values: [JSONValue]) -> String {
        switch values.first {
        case .object: return "an object"
        case .array: return "an array"
        case nil: return "always null"
        default: return "values of mixed types"
        }
    }
}

/// Swift spellings of JSON names.
enum SwiftName {
    static let keywords: Set<String> = [
        "class", "default", "deinit", "enum", "extension", "func", "import", "init", "inout", "internal", "let",
        "operator", "private", "protocol", "public", "static", "struct", "subscript", "typealias", "var", "break", "case",
        "continue", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where",
        "while", "as", "is", "nil", "self", "super", "throw", "throws", "true", "false", "try", "Type", "Any",
    ]

    /// `html_url` → `htmlURL`, `node_id` → `nodeID`, `private` → `` `private` ``; `nil` when not an identifier.
    static func property(_ key: String) -> String? {
        let words = key.split(separator: "_").map(String.init)
        guard !words.isEmpty,
            key.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }),
            let first = words.first?.unicodeScalars.first, !("0"..."9").contains(first)
        else { return nil }
        let name = words.enumerated().map { index, word in
            if index == 0 { return word }
            if ["url", "id", "api", "html"].contains(word.lowercased()) { return word.uppercased() }
            return word.prefix(1).uppercased() + word.dropFirst()
        }.joined()
        return keywords.contains(name) ? "`\(name)`" : name
    }

    /// `user` → `User`, `release_author` → `ReleaseAuthor`.
    static func typeName(_ key: String) -> String {
        key.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
