/// A query that does not parse: what is wrong and where, rendered as feeds.yaml's errors are
/// (`query:1:COL: error: message`, the query, a caret under the column).
public struct SearchQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The query as given.
    public var query: String
    /// The 1-based column (in characters) of the problem.
    public var column: Int
    /// What is wrong.
    public var message: String

    /// Creates an error at `column` (1-based) of `query`.
    public init(_ message: String, in query: String, column: Int) {
        self.message = message
        self.query = query
        self.column = column
    }

    /// `query:1:COL: error: message`, then the query and a caret under the column.
    public var description: String {
        let shown = String(query.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        return "query:1:\(column): error: \(message)\n    \(shown)\n    " + String(repeating: " ", count: max(0, column - 1)) + "^"
    }
}
