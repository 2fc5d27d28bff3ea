import Foundation

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
