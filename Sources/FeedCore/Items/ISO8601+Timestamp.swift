public import Foundation

extension ISO8601 {
    /// The ISO 8601 timestamp `text` read from the JSON member at `path` (`$[3].created_at`):
    /// `nil` when absent or empty, a ``PageDecodeError`` at `path` when present but malformed.
    public static func timestamp(_ text: String?, at path: @autoclosure () -> String) throws(PageDecodeError) -> Date? {
        guard let text, !text.isEmpty else { return nil }
        guard let date = date(from: text) else {
            throw PageDecodeError(path: path(), "expected an ISO 8601 timestamp, found '\(text.prefix(40))'")
        }
        return date
    }
}
