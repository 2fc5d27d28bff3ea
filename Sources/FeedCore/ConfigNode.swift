import Foundation

/// The text of a configuration file, kept so errors can quote the offending line.
public final class SourceFile: Sendable {
    /// The path as the user gave it.
    public let path: String
    /// The file's lines, without terminators.
    public let lines: [String]

    /// Creates a source file from its path and full text.
    public init(path: String, text: String) {
        self.path = path
        // `\r\n` is one Character, and libyaml counts CR, LF, CRLF, NEL, LS and PS as breaks too.
        self.lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
    }

    /// The 1-based line `number`, if it exists.
    public func line(_ number: Int) -> String? {
        number >= 1 && number <= lines.count ? lines[number - 1] : nil
    }
}

/// A 1-based line and column in a configuration file.
public struct SourceLocation: Sendable, CustomStringConvertible {
    /// The file, with its text.
    public let file: SourceFile
    /// 1-based line.
    public let line: Int
    /// 1-based column.
    public let column: Int

    /// Creates a location.
    public init(file: SourceFile, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `path:line:column`.
    public var description: String { "\(file.path):\(line):\(column)" }
}

/// A node of a parsed configuration document, with where it came from.
public struct ConfigNode: Sendable {
    /// The node's content.
    public enum Value: Sendable {
        /// A scalar as written (after environment interpolation); `plain` is false when it was quoted.
        case scalar(String, plain: Bool)
        /// An ordered mapping of scalar keys to nodes.
        case mapping([(key: ConfigNode, value: ConfigNode)])
        /// A sequence of nodes.
        case sequence([ConfigNode])
    }

    /// The content.
    public var value: Value
    /// Where the node starts.
    public var location: SourceLocation
    /// Names of environment variables that were referenced but unset (the scalar is then null).
    public var unsetVariables: [String]

    /// Creates a node.
    public init(_ value: Value, at location: SourceLocation, unsetVariables: [String] = []) {
        self.value = value
        self.location = location
        self.unsetVariables = unsetVariables
    }

    /// The scalar text, if this is a scalar.
    public var scalar: String? {
        if case .scalar(let text, _) = value { return text }
        return nil
    }

    /// Whether this is a YAML null (`~`, `null`, empty plain scalar) or an unset variable.
    public var isNull: Bool {
        guard case .scalar(let text, let plain) = value else { return false }
        if !unsetVariables.isEmpty && text.isEmpty { return true }
        return plain && ["", "~", "null", "Null", "NULL"].contains(text)
    }

    /// A human name for the node's kind, for "expected X, found Y" messages.
    public var kindDescription: String {
        switch value {
        case .scalar: return isNull ? "null" : "a scalar"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }

    /// The entries of a mapping, or `nil`.
    public var entries: [(key: ConfigNode, value: ConfigNode)]? {
        if case .mapping(let entries) = value { return entries }
        return nil
    }

    /// The value under `key` in a mapping.
    public subscript(key: String) -> ConfigNode? {
        entries?.first { $0.key.scalar == key }?.value
    }
}

/// A configuration problem, located in the file, rendered like a compiler diagnostic.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    /// Where the problem is, when known.
    public var location: SourceLocation?
    /// What is wrong and what was expected.
    public var message: String
    /// Extra lines (`help: did you mean …`).
    public var notes: [String]

    /// Creates an error.
    public init(_ message: String, at location: SourceLocation?, notes: [String] = []) {
        self.location = location
        self.message = message
        self.notes = notes
    }

    /// `file:line:col: error: message`, then the line, a caret, and notes.
    public var description: String {
        guard let location else {
            return (["error: \(message)"] + notes.map { "  \($0)" }).joined(separator: "\n")
        }
        var out = ["\(location): error: \(message)"]
        if let text = location.file.line(location.line) {
            out.append("  \(text)")
            let prefix = text.prefix(max(0, location.column - 1)).map { $0 == "\t" ? "\t" : " " }.joined()
            out.append("  \(prefix)^")
        }
        out += notes.map { "  \($0)" }
        return out.joined(separator: "\n")
    }
}

/// Suggests the closest known word to a misspelt one.
public enum Suggestion {
    /// The candidate nearest to `word` by edit distance, if near enough to be a plausible typo.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let limit = max(2, word.count / 3)
        return best.1 <= limit ? best.0 : nil
    }

    /// Levenshtein distance.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
