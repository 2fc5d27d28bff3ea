import FeedCore
import Foundation

/// How the page writes a date: `2026-11-25 17:14 UTC` for people, ISO 8601 for `<time datetime>`.
/// `app.js` formats the dates of the items it adds the same way (its `shortDate`).
enum WebDate {
    /// `2026-11-25 17:14 UTC`.
    static func short(_ date: Date) -> String {
        let iso = ISO8601.string(from: date)  // 2026-11-25T17:14:09Z
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5)) + " UTC"
    }

    /// `2026-11-25T17:14:09Z`.
    static func machine(_ date: Date) -> String { ISO8601.string(from: date) }
}
