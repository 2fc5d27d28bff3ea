import Foundation

/// Text clean-up that a source applies to wire strings before they become item fields.
public enum ItemText {
    /// `text` with surrounding whitespace and newlines removed, or `nil` when nothing is left
    /// (so an empty `html_url` is no URL at all).
    public static func nonEmpty(_ text: String?) -> String? {
        guard let text else { return nil }
        // The usual case, without Foundation's trimming (most of the mapping time): a first and a
        // last byte that are printable ASCII are scalars that are neither whitespace nor newlines,
        // so there is nothing to trim.
        let utf8 = text.utf8
        if let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return text
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// ``nonEmpty(_:)`` on one line: every run of whitespace (newlines included) becomes one space.
    public static func oneLine(_ text: String?) -> String? {
        nonEmpty(text).map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
    }
}
