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
