import Foundation

/// A small JSONPath subset for declarative sources: `$`, `$.a.b`, `$[0]`, `$['key']`, `$["key"]`
/// and any chain of them (`$.data[0]['full name']`).
///
/// Evaluation follows members and indices; an absent member, an index past the end or a `null`
/// along the way yields `nil` (the value is absent), while stepping into a value of the wrong
/// kind (a member of a string) is a ``JSONPathError`` naming the concrete path.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        /// An object member.
        case key(String)
        /// An array element (0-based).
        case index(Int)
    }

    /// The steps after `$`.
    public let components: [Component]

    /// The root path `$`.
    public static let root = JSONPath(components: [])

    /// A path made of `components`.
    public init(components: [Component]) {
        self.components = components
    }

    /// Parses a path such as `$.photos` or `$[0]['key']`.
    ///
    /// - Throws: ``JSONPathError`` with the character offset of the problem.
    public init(_ text: String) throws(JSONPathError) {
        var parser = JSONPathParser(text)
        components = try parser.parse()
    }

    /// The object keys of the path, when it has no index steps (`$.a.b` → `["a", "b"]`).
    public var keys: [String]? {
        var keys: [String] = []
        for component in components {
            guard case .key(let key) = component else { return nil }
            keys.append(key)
        }
        return keys
    }

    /// The path in canonical form: `.name` for identifier-like keys, else `['key']`.
    public var description: String {
        Self.render(components, prefix: "$")
    }

    /// `prefix` followed by `components` in canonical form.
    public static func render(_ components: [Component], prefix: String) -> String {
        var out = prefix
        for component in components {
            switch component {
            case .index(let index): out += "[\(index)]"
            case .key(let key):
                let plain =
                    !key.isEmpty
                    && key.unicodeScalars.allSatisfy {
                        $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-")
                    }
                out += plain ? ".\(key)" : "['\(key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'"))']"
            }
        }
        return out
    }

    /// The value at this path in `value`, or `nil` when absent or null.
    ///
    /// - Parameter base: how to name `value` in errors (`$`, or `$.photos[3]` for an item).
    /// - Throws: ``JSONPathError`` when a step meets a value of the wrong kind.
    public func evaluate(_ value: JSONValue, base: String = "$") throws(JSONPathError) -> JSONValue? {
        var current = value
        var done: [Component] = []
        for component in components {
            if case .null = current { return nil }
            switch component {
            case .key(let key):
                guard case .object = current else {
                    throw JSONPathError(
                        path: Self.render(done, prefix: base),
                        "expected an object with member '\(key)' for \(self), found \(current.kindDescription)")
                }
                guard let next = current[key] else { return nil }
                current = next
            case .index(let index):
                guard case .array(let items) = current else {
                    throw JSONPathError(
                        path: Self.render(done, prefix: base),
                        "expected an array for \(self), found \(current.kindDescription)")
                }
                guard index < items.count else { return nil }
                current = items[index]
            }
            done.append(component)
        }
        if case .null = current { return nil }
        return current
    }
}

/// A JSON path that could not be parsed, or a value that does not have the path's shape.
public struct JSONPathError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path text (syntax errors) or the concrete path reached (evaluation errors).
    public var path: String
    /// What is wrong.
    public var message: String
    /// The 0-based character offset of a syntax error in the path text, if it is one.
    public var offset: Int?

    /// `message` about `path`; `offset` only for a syntax error in the path text.
    public init(path: String, _ message: String, offset: Int? = nil) {
        self.path = path
        self.message = message
        self.offset = offset
    }

    /// The message, with the path (and the 1-based character where it is wrong, when known).
    public var description: String {
        if let offset { return "invalid JSON path '\(path)': \(message) (at character \(offset + 1))" }
        return "\(message) at \(path)"
    }
}

/// Parses the path grammar: `$` then `.name`, `[N]`, `['key']` or `["key"]` steps.
private struct JSONPathParser {
    let text: String
    let characters: [Character]
    var index = 0

    init(_ text: String) {
        self.text = text
        self.characters = Array(text)
    }

    private func failure(_ message: String, at offset: Int? = nil) -> JSONPathError {
        JSONPathError(path: text, message, offset: offset ?? index)
    }

    mutating func parse() throws(JSONPathError) -> [JSONPath.Component] {
        guard characters.first == "$" else {
            throw failure("a JSON path starts with '$' (e.g. $.items or $[0])", at: 0)
        }
        index = 1
        var components: [JSONPath.Component] = []
        while index < characters.count {
            switch characters[index] {
            case ".":
                index += 1
                let start = index
                while index < characters.count, characters[index] != ".", characters[index] != "[" {
                    let character = characters[index]
                    guard !character.isWhitespace, character != "]", character != "'", character != "\"" else {
                        throw failure("unexpected '\(character)' in a member name (use ['…'] for such keys)")
                    }
                    index += 1
                }
                guard index > start else { throw failure("expected a member name after '.'", at: start) }
                components.append(.key(String(characters[start..<index])))
            case "[":
                index += 1
                guard index < characters.count else { throw failure("'[' is not closed by ']'", at: index - 1) }
                if characters[index] == "'" || characters[index] == "\"" {
                    components.append(.key(try quotedKey()))
                } else {
                    let start = index
                    while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
                    guard index > start, let number = Int(String(characters[start..<index])) else {
                        throw failure("expected an array index (0, 1, …) or a quoted key after '['", at: start)
                    }
                    components.append(.index(number))
                }
                guard index < characters.count, characters[index] == "]" else { throw failure("expected ']'") }
                index += 1
            default:
                throw failure("unexpected '\(characters[index])': expected '.' or '['")
            }
        }
        return components
    }

    private mutating func quotedKey() throws(JSONPathError) -> String {
        let quote = characters[index]
        let open = index
        index += 1
        var key = ""
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count {
                key.append(characters[index + 1])
                index += 2
                continue
            }
            if character == quote {
                index += 1
                return key
            }
            key.append(character)
            index += 1
        }
        throw failure("unterminated quoted key", at: open)
    }
}
