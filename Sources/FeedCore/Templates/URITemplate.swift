import Foundation

/// An RFC 6570 URI template, levels 1 to 4: parsed once, expanded against variables many times.
///
/// ```swift
/// let template = try URITemplate("{+base_url}/orgs/{org}/repos{?per_page}")
/// let url = try template.expand(["base_url": "https://api.github.com", "org": "apple", "per_page": "100"])
/// // https://api.github.com/orgs/apple/repos?per_page=100
/// ```
///
/// Every operator (`+ # . / ; ? &`), prefix (`{var:3}`) and explode (`{list*}`) modifiers, lists
/// and associative arrays are supported. Syntax errors are found by ``init(_:)`` and carry the
/// character offset of the problem, so a caller can point at it.
public struct URITemplate: Sendable, CustomStringConvertible {
    /// A variable's value.
    public enum Value: Sendable, Equatable, ExpressibleByStringLiteral {
        /// A string.
        case string(String)
        /// An ordered list of strings (undefined when empty).
        case list([String])
        /// An ordered list of name/value pairs (undefined when empty).
        case associative([Pair])

        /// `"apple"` as a variable value is `.string("apple")`.
        public init(stringLiteral value: String) {
            self = .string(value)
        }

        /// Whether RFC 6570 treats the value as undefined (an empty list or associative array).
        public var isUndefined: Bool {
            switch self {
            case .string: false
            case .list(let items): items.isEmpty
            case .associative(let pairs): pairs.isEmpty
            }
        }
    }

    /// One name/value pair of an associative value: `name,value` in `{keys}`, `name=value` when
    /// exploded (`{keys*}`).
    public struct Pair: Sendable, Equatable {
        /// Unencoded: expansion percent-encodes it like any value.
        public var name: String
        /// Unencoded; empty gives `name` alone in the `;` expansion (`;keys*`).
        public var value: String

        /// The pair `name`, `value`, in that order.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A variable reference in the template, with where its name starts.
    public struct VariableReference: Sendable, Equatable {
        /// The variable's name.
        public var name: String
        /// The character offset of the name in the template (0-based).
        public var offset: Int
    }

    /// The template text as given.
    public let template: String
    private let parts: [Part]

    /// Parses `template`.
    ///
    /// - Throws: ``URITemplateError`` naming the problem and its character offset.
    public init(_ template: String) throws(URITemplateError) {
        self.template = template
        var parser = Parser(template)
        self.parts = try parser.parse()
    }

    /// The template as written.
    public var description: String { template }

    /// Every variable reference, in template order (a name used twice appears twice).
    public var variables: [VariableReference] {
        parts.flatMap { part -> [VariableReference] in
            guard case .expression(let expression) = part else { return [] }
            return expression.specs.map { VariableReference(name: $0.name, offset: $0.offset) }
        }
    }

    /// The distinct variable names, in order of first use.
    public var variableNames: [String] {
        var seen = Set<String>()
        return variables.map(\.name).filter { seen.insert($0).inserted }
    }

    /// Expands the template; a variable missing from `variables` is undefined (expands to nothing).
    ///
    /// - Throws: ``URITemplateError`` when a prefix modifier is applied to a list or associative value.
    public func expand(_ variables: [String: Value]) throws(URITemplateError) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let text):
                out += text
            case .expression(let expression):
                out += try expression.expand(variables)
            }
        }
        return out
    }

    // MARK: - Model

    enum Part: Sendable {
        case literal(String)
        case expression(Expression)
    }

    struct VarSpec: Sendable {
        var name: String
        var offset: Int
        var prefix: Int?
        var explode: Bool
    }

    /// The expansion rules of one operator (RFC 6570 appendix A).
    struct Operator: Sendable {
        /// Written before the first defined value (`first`).
        let first: String
        /// Written between values (`sep`).
        let separator: String
        /// Whether values are written as `name=value` (`named`).
        let named: Bool
        /// Written after the name of an empty value (`ifemp`).
        let ifEmpty: String
        /// Whether reserved characters pass unencoded (`allow` is U+R).
        let allowsReserved: Bool

        static func forCharacter(_ character: Character?) -> Operator? {
            switch character {
            case nil: Operator(first: "", separator: ",", named: false, ifEmpty: "", allowsReserved: false)
            case "+": Operator(first: "", separator: ",", named: false, ifEmpty: "", allowsReserved: true)
            case "#": Operator(first: "#", separator: ",", named: false, ifEmpty: "", allowsReserved: true)
            case ".": Operator(first: ".", separator: ".", named: false, ifEmpty: "", allowsReserved: false)
            case "/": Operator(first: "/", separator: "/", named: false, ifEmpty: "", allowsReserved: false)
            case ";": Operator(first: ";", separator: ";", named: true, ifEmpty: "", allowsReserved: false)
            case "?": Operator(first: "?", separator: "&", named: true, ifEmpty: "=", allowsReserved: false)
            case "&": Operator(first: "&", separator: "&", named: true, ifEmpty: "=", allowsReserved: false)
            default: nil
            }
        }
    }

    struct Expression: Sendable {
        var op: Operator
        var specs: [VarSpec]
        var offset: Int

        func expand(_ variables: [String: Value]) throws(URITemplateError) -> String {
            var out = ""
            var isFirst = true
            for spec in specs {
                guard let value = variables[spec.name], !value.isUndefined else { continue }
                out += isFirst ? op.first : op.separator
                isFirst = false
                out += try expand(spec, value)
            }
            return out
        }

        private func encode(_ text: String) -> String {
            URITemplateEncoding.encode(text, allowReserved: op.allowsReserved)
        }

        private func expand(_ spec: VarSpec, _ value: Value) throws(URITemplateError) -> String {
            switch value {
            case .string(let text):
                var out = ""
                if op.named {
                    out += spec.name
                    out += text.isEmpty ? op.ifEmpty : "="
                }
                out += encode(spec.prefix.map { String(text.prefix($0)) } ?? text)
                return out
            case .list(let items):
                if spec.prefix != nil { throw prefixError(spec, "a list") }
                if spec.explode {
                    return items.map { item in
                        op.named ? spec.name + (item.isEmpty ? op.ifEmpty : "=" + encode(item)) : encode(item)
                    }.joined(separator: op.separator)
                }
                return (op.named ? spec.name + "=" : "") + items.map(encode).joined(separator: ",")
            case .associative(let pairs):
                if spec.prefix != nil { throw prefixError(spec, "an associative array") }
                if spec.explode {
                    return pairs.map { pair in
                        encode(pair.name) + (op.named && pair.value.isEmpty ? op.ifEmpty : "=" + encode(pair.value))
                    }.joined(separator: op.separator)
                }
                return (op.named ? spec.name + "=" : "")
                    + pairs.map { encode($0.name) + "," + encode($0.value) }.joined(separator: ",")
            }
        }

        private func prefixError(_ spec: VarSpec, _ kind: String) -> URITemplateError {
            URITemplateError(
                "the prefix modifier ':\(spec.prefix ?? 0)' cannot apply to '\(spec.name)', which is \(kind)",
                offset: spec.offset)
        }
    }

    // MARK: - Parser

    private struct Parser {
        let characters: [Character]
        var index = 0

        init(_ template: String) {
            characters = Array(template)
        }

        mutating func parse() throws(URITemplateError) -> [Part] {
            var parts: [Part] = []
            var literal = ""
            while index < characters.count {
                let character = characters[index]
                switch character {
                case "{":
                    if !literal.isEmpty { parts.append(.literal(literal)) }
                    literal = ""
                    parts.append(.expression(try expression()))
                case "}":
                    throw URITemplateError("'}' without a matching '{'", offset: index)
                case "%":
                    guard index + 2 < characters.count, characters[index + 1].isHexDigit,
                        characters[index + 2].isHexDigit
                    else {
                        throw URITemplateError("'%' must start a percent-encoded octet like %20", offset: index)
                    }
                    literal += String(characters[index...index + 2])
                    index += 3
                default:
                    if URITemplateEncoding.isForbiddenInLiteral(character) {
                        throw URITemplateError(
                            "character \(URITemplateEncoding.describe(character)) is not allowed in a URI template",
                            offset: index)
                    }
                    literal += URITemplateEncoding.encode(String(character), allowReserved: true)
                    index += 1
                }
            }
            if !literal.isEmpty { parts.append(.literal(literal)) }
            return parts
        }

        /// Parses `{…}` starting at the `{`.
        private mutating func expression() throws(URITemplateError) -> Expression {
            let open = index
            index += 1
            guard let close = characters[index...].firstIndex(of: "}") else {
                throw URITemplateError("'{' is not closed by '}'", offset: open)
            }
            if characters[index..<close].contains("{") {
                throw URITemplateError("'{' is not closed by '}' before the next '{'", offset: open)
            }
            guard close > index else { throw URITemplateError("empty expression '{}'", offset: open) }
            var op = Operator.forCharacter(nil)
            let first = characters[index]
            if let chosen = Operator.forCharacter(first) {
                op = chosen
                index += 1
            } else if "=,!@|".contains(first) {
                throw URITemplateError("operator '\(first)' is reserved for future extensions", offset: index)
            }
            guard let op else { throw URITemplateError("invalid expression", offset: open) }
            var specs: [VarSpec] = []
            while true {
                specs.append(try varSpec(until: close))
                if index == close { break }
                // varSpec stops at ',' or the close brace.
                index += 1
            }
            index = close + 1
            return Expression(op: op, specs: specs, offset: open)
        }

        /// Parses `name`, `name*` or `name:N` up to a `,` or `close`.
        private mutating func varSpec(until close: Int) throws(URITemplateError) -> VarSpec {
            let start = index
            var name = ""
            var previousWasDot = true  // a name cannot start with '.'
            while index < close, characters[index] != ",", characters[index] != ":", characters[index] != "*" {
                let character = characters[index]
                if character == "%" {
                    guard index + 2 < close, characters[index + 1].isHexDigit, characters[index + 2].isHexDigit else {
                        throw URITemplateError("'%' in a variable name must start a percent-encoded octet", offset: index)
                    }
                    name += String(characters[index...index + 2])
                    index += 3
                    previousWasDot = false
                    continue
                }
                if character == "." {
                    if previousWasDot {
                        throw URITemplateError("a variable name cannot start with '.' or hold '..'", offset: index)
                    }
                    previousWasDot = true
                } else if character.isASCII && (character.isLetter || character.isNumber || character == "_") {
                    previousWasDot = false
                } else {
                    throw URITemplateError(
                        "character \(URITemplateEncoding.describe(character)) is not allowed in a variable name",
                        offset: index)
                }
                name.append(character)
                index += 1
            }
            if name.isEmpty {
                throw URITemplateError("expected a variable name", offset: index)
            }
            if previousWasDot {
                throw URITemplateError("a variable name cannot end with '.'", offset: index - 1)
            }
            var spec = VarSpec(name: name, offset: start, prefix: nil, explode: false)
            if index < close, characters[index] == "*" {
                spec.explode = true
                index += 1
            } else if index < close, characters[index] == ":" {
                let colon = index
                index += 1
                var digits = ""
                while index < close, characters[index].isASCII, characters[index].isNumber {
                    digits.append(characters[index])
                    index += 1
                }
                guard let length = Int(digits), (1...9999).contains(length), !digits.hasPrefix("0") else {
                    throw URITemplateError(
                        "a prefix modifier must be ':' followed by a length from 1 to 9999", offset: colon)
                }
                spec.prefix = length
            }
            guard index == close || characters[index] == "," else {
                throw URITemplateError(
                    "expected ',' or '}' after variable '\(name)', found \(URITemplateEncoding.describe(characters[index]))",
                    offset: index)
            }
            if characters[index] == ",", index + 1 == close {
                throw URITemplateError("expected a variable name after ','", offset: index + 1)
            }
            return spec
        }
    }
}

/// A URI template that could not be parsed or expanded.
public struct URITemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The 0-based character offset of the problem in the template.
    public var offset: Int

    /// `message` about the character at 0-based `offset` of the template (or field expression).
    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    /// The message with the (1-based) character where the template is wrong.
    public var description: String { "\(message) (at character \(offset + 1))" }
}

/// RFC 6570 percent-encoding: `U` (unreserved only) and `U+R` (reserved too, and existing
/// percent-encoded octets kept).
enum URITemplateEncoding {
    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    static let reserved = Set(":/?#[]@!$&'()*+,;=".utf8)

    static func encode(_ text: String, allowReserved: Bool) -> String {
        let bytes = Array(text.utf8)
        var out = ""
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if unreserved.contains(byte) || (allowReserved && reserved.contains(byte)) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else if allowReserved, byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]),
                isHex(bytes[index + 2])
            {
                out += String(decoding: bytes[index...index + 2], as: UTF8.self)
                index += 3
                continue
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
            index += 1
        }
        return out
    }

    static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// Characters RFC 6570 excludes from literals (controls, space, `"`, `<`, `>`, `\`, `^`, `` ` ``, `|`).
    /// `'` is accepted and copied, as the uritemplate-test vectors expect.
    static func isForbiddenInLiteral(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1 else { return false }
        if scalar.value < 0x21 || scalar.value == 0x7F { return true }
        return "\"<>\\^`|".unicodeScalars.contains(scalar)
    }

    static func describe(_ character: Character) -> String {
        switch character {
        case " ": "' ' (space)"
        case "\t": "tab"
        case "\n", "\r\n", "\r": "line break"
        default: "'\(character)'"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
