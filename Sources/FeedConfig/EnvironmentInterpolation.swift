import FeedCore

/// Expands `${VAR}`, `${VAR:-default}`, `${VAR:?message}` and `$$` in scalar values.
///
/// - `${VAR}`: the variable's value. When it is unset, the whole scalar becomes empty and `VAR`
///   is recorded as unset, so the value counts as absent (`token: ${GITHUB_TOKEN}` is optional).
/// - `${VAR:-default}`: `default` when `VAR` is unset or empty.
/// - `${VAR:?message}`: a ``ConfigError`` when `VAR` is unset or empty.
/// - `$$`: a literal `$`. A `$` followed by anything else is kept as is.
struct EnvironmentInterpolator: Sendable {
    /// The variables references are resolved against.
    let environment: [String: String]

    /// Where the scalar's text starts in its source line, so errors can point at the `${`.
    enum Anchoring {
        /// A single-line plain or quoted scalar whose first character is `offset` columns after
        /// the node's location (1 for a quote).
        case inline(offset: Int)
        /// A block scalar or an escaped string: errors point at the node.
        case node
    }

    /// The interpolated text and the names of referenced variables that are unset.
    func interpolate(
        _ text: String, at location: SourceLocation, anchoring: Anchoring
    ) throws -> (text: String, unset: [String]) {
        guard text.unicodeScalars.contains("$") else { return (text, []) }
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var unset: [String] = []
        var index = 0

        func error(_ message: String, at offset: Int) -> ConfigError {
            ConfigError(message, at: refined(location, text: scalars, offset: offset, anchoring: anchoring))
        }

        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "$", index + 1 < scalars.count else {
                output.append(scalar)
                index += 1
                continue
            }
            let next = scalars[index + 1]
            if next == "$" {
                output.append("$")
                index += 2
                continue
            }
            guard next == "{" else {
                output.append(scalar)
                index += 1
                continue
            }
            guard let close = scalars[(index + 2)...].firstIndex(of: "}") else {
                throw error("unterminated '${' in value (write '$$' for a literal '$')", at: index)
            }
            let body = scalars[(index + 2)..<close]
            let reference = "${" + String(String.UnicodeScalarView(body)) + "}"
            let nameEnd = body.firstIndex { !Self.isNameCharacter($0) } ?? body.endIndex
            let name = String(String.UnicodeScalarView(body[body.startIndex..<nameEnd]))
            guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else {
                throw error(
                    "invalid environment variable reference '\(reference)': expected ${NAME}, ${NAME:-default} or ${NAME:?message}",
                    at: index)
            }
            let operation = body[nameEnd...]
            let value = environment[name]
            if operation.isEmpty {
                if let value {
                    output.append(contentsOf: value.unicodeScalars)
                } else if !unset.contains(name) {
                    unset.append(name)
                }
            } else if operation.starts(with: [":", "-"]) {
                if let value, !value.isEmpty {
                    output.append(contentsOf: value.unicodeScalars)
                } else {
                    output.append(contentsOf: operation.dropFirst(2))
                }
            } else if operation.starts(with: [":", "?"]) {
                if let value, !value.isEmpty {
                    output.append(contentsOf: value.unicodeScalars)
                } else {
                    let message = String(String.UnicodeScalarView(operation.dropFirst(2)))
                    let state = value == nil ? "is not set" : "is empty"
                    throw error(
                        "environment variable \(name) \(state)" + (message.isEmpty ? "" : ": \(message)"), at: index)
                }
            } else {
                throw error(
                    "invalid environment variable reference '\(reference)': expected ${NAME}, ${NAME:-default} or ${NAME:?message}",
                    at: index)
            }
            index = close + 1
        }
        return unset.isEmpty ? (String(output), []) : ("", unset)
    }

    /// The names `${NAME…}` references in `text` use, in order, once each (`$$` is skipped).
    static func referencedVariables(in text: String) -> [String] {
        guard text.contains("${") else { return [] }
        let scalars = Array(text.unicodeScalars)
        var names: [String] = []
        var index = 0
        while index + 1 < scalars.count {
            guard scalars[index] == "$" else {
                index += 1
                continue
            }
            if scalars[index + 1] == "$" {
                index += 2
                continue
            }
            guard scalars[index + 1] == "{" else {
                index += 1
                continue
            }
            var end = index + 2
            while end < scalars.count, isNameCharacter(scalars[end]) { end += 1 }
            let name = String(String.UnicodeScalarView(scalars[(index + 2)..<end]))
            if !name.isEmpty, !names.contains(name) { names.append(name) }
            index = end
        }
        return names
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// The location of the `$` at `offset` in the scalar when the source line shows the scalar's
    /// text verbatim up to there; otherwise the scalar's own location.
    private func refined(
        _ location: SourceLocation, text: [Unicode.Scalar], offset: Int, anchoring: Anchoring
    ) -> SourceLocation {
        guard case .inline(let start) = anchoring, let line = location.file.line(location.line) else {
            return location
        }
        let lineScalars = Array(line.unicodeScalars)
        let first = location.column - 1 + start
        guard first >= 0, first + offset <= lineScalars.count,
            Array(lineScalars[first..<(first + offset)]) == Array(text[0..<offset])
        else { return location }
        // Columns count characters, like the caret renderer.
        let column = String(String.UnicodeScalarView(lineScalars[0..<(first + offset)])).count + 1
        return SourceLocation(file: location.file, line: location.line, column: column)
    }
}
