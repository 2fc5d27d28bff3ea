import FeedCore
import Foundation

/// The notes of errors and the warnings of feeds.yaml.
extension FeedsValidator {
    // MARK: - Messages

    var knownTypesNote: String {
        "known source types: " + (knownTypes.isEmpty ? "(none)" : knownTypes.joined(separator: ", "))
    }

    func unknownKey(
        _ key: ConfigNode, _ message: String, candidates: [String], listing: String, extra: [String] = [],
        suffix: String = ""
    ) -> ConfigError {
        var notes: [String] = []
        if let suggestion = Suggestion.closest(to: key.scalar ?? "", in: candidates) {
            notes.append("help: did you mean '\(suggestion)'?")
        }
        notes += extra
        notes.append("\(listing): \(candidates.sorted().joined(separator: ", "))\(suffix)")
        return ConfigError(message, at: key.location, notes: notes)
    }

    /// The key of `entries` that looks like a misspelling of the missing required key `required`:
    /// not itself a `known` key, and a plausible typo away from `required`.
    static func misspelt(_ required: String, in entries: [(key: ConfigNode, value: ConfigNode)], known: Set<String> = [])
        -> ConfigNode?
    {
        entries.first { entry in
            guard let key = entry.key.scalar, key != required, !known.contains(key) else { return false }
            return Suggestion.closest(to: key, in: [required]) != nil
        }?.key
    }

    /// `help: did you mean 'source'? ('sourc' is not a parameter)` for a misspelt required key.
    func misspeltNotes(_ key: ConfigNode?, _ required: String) -> [String] {
        guard let key else { return [] }
        return ["help: did you mean '\(required)'? ('\(key.scalar ?? "")' is not a parameter)"]
    }

    func unsetNotes(_ node: ConfigNode?) -> [String] {
        guard let node, !node.unsetVariables.isEmpty else { return [] }
        return ["note: \(Self.unsetPhrase(node.unsetVariables)) (at \(node.location))"]
    }

    static func unsetPhrase(_ variables: [String]) -> String {
        variables.count == 1
            ? "environment variable \(variables[0]) is not set"
            : "environment variables \(variables.joined(separator: ", ")) are not set"
    }

    /// Whether `key` is a top-level `x-…` key, ignored so it can hold anchors.
    static func isExtensionKey(_ key: ConfigNode) -> Bool {
        key.scalar?.hasPrefix("x-") == true
    }

    /// Letters, digits, `-`, `_` and `.`, starting with a letter or digit (safe in paths and URLs).
    static func isSafeName(_ name: String) -> Bool {
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
        guard let first = name.utf8.first, isAlphanumeric(first) else { return false }
        return name.utf8.allSatisfy { isAlphanumeric($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
    }

    /// The `-` that starts a block list item when it is on the node's line, else the node itself.
    static func itemLocation(_ node: ConfigNode) -> SourceLocation {
        let location = node.location
        guard let line = location.file.line(location.line) else { return location }
        let scalars = Array(line.unicodeScalars)
        var index = min(location.column - 1, scalars.count) - 1
        while index >= 0, scalars[index] == " " || scalars[index] == "\t" { index -= 1 }
        guard index >= 0, scalars[index] == "-" else { return location }
        let column = String(String.UnicodeScalarView(scalars[0..<index])).count + 1
        return SourceLocation(file: location.file, line: location.line, column: column)
    }
}
