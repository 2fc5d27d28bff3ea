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
