public import FeedCore
import Foundation

/// `interval:`: how often `feedagg serve` pulls a feed, in `settings:` (the default of every feed)
/// or in a feed (or `defaults:`) of its own.
///
/// Written as a number of seconds (`90`) or a number with a unit: `s`, `m`, `h` or `d` (`90s`,
/// `15m`, `1.5h`, `1d`). At least one minute, at most a week; 15 minutes when not given.
public enum PullInterval {
    /// The interval when none is given: 15 minutes.
    public static let standard: Double = 900
    /// The shortest interval accepted: one minute.
    public static let minimum: Double = 60
    /// The longest interval accepted: one week.
    public static let maximum: Double = 7 * 86_400

    /// The seconds `node` (the value of `key`) says, or a ``ConfigError`` at the value, naming
    /// what is accepted.
    public static func seconds(_ node: ConfigNode, key: String = "interval") throws -> Double {
        guard let text = node.scalar?.trimmingCharacters(in: .whitespaces) else {
            throw ConfigError(
                "'\(key)' must be a duration such as 15m, 90s or 2h, found \(node.kindDescription)", at: node.location)
        }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Substring(text)
        var unit = 1.0
        if let last = text.last, let factor = units[last] {
            number = text.dropLast()
            unit = factor
        }
        guard let value = Double(number), value.isFinite, value > 0 else {
            throw ConfigError(
                "'\(key)' must be a duration such as 15m, 90s or 2h (a number with s, m, h or d; a plain number is seconds), found '\(text)'",
                at: node.location)
        }
        let seconds = value * unit
        guard seconds >= minimum else {
            throw ConfigError(
                "'\(key)' must be at least 1m (60 seconds), found '\(text)'", at: node.location,
                notes: ["note: feedagg serve pulls a feed at most once a minute"])
        }
        guard seconds <= maximum else {
            throw ConfigError("'\(key)' must be at most 7d (one week), found '\(text)'", at: node.location)
        }
        return seconds
    }
}
