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
        try duration(
            node, key: key, minimum: minimum, minimumText: "1m (60 seconds)", maximum: maximum, maximumText: "7d (one week)",
            note: "feedagg serve pulls a feed at most once a minute")
    }

    /// A duration written as `interval` is (`90`, `90s`, `15m`, `1.5h`, `1d`), from `minimum` to
    /// `maximum` seconds (`minimumText`, `maximumText` say them in messages).
    static func duration(
        _ node: ConfigNode, key: String, minimum: Double, minimumText: String, maximum: Double, maximumText: String,
        note: String? = nil
    ) throws -> Double {
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
                "'\(key)' must be at least \(minimumText), found '\(text)'", at: node.location,
                notes: note.map { ["note: " + $0] } ?? [])
        }
        guard seconds <= maximum else {
            throw ConfigError("'\(key)' must be at most \(maximumText), found '\(text)'", at: node.location)
        }
        return seconds
    }
}

/// `lease_timeout:` in `settings:`: how long a `feedagg serve` worker sharing a PostgreSQL store
/// holds a feed without renewing its lease (docs/worker-coordination.md). Written as `interval`
/// is; at least 10 seconds, at most a day; 2 minutes when not given.
public enum LeaseTimeout {
    /// The lease timeout when none is given: 2 minutes.
    public static let standard: Double = 120
    /// The shortest accepted: 10 seconds (a heartbeat every third of it).
    public static let minimum: Double = 10
    /// The longest accepted: one day.
    public static let maximum: Double = 86_400

    /// The seconds `node` says, or a ``ConfigError`` at the value.
    public static func seconds(_ node: ConfigNode) throws -> Double {
        try PullInterval.duration(
            node, key: "lease_timeout", minimum: minimum, minimumText: "10s", maximum: maximum, maximumText: "1d (one day)",
            note: "a worker renews its leases every third of lease_timeout")
    }
}

/// `min_refresh:` in `settings:`: how long after a feed's last pull `feedagg serve` refuses to
/// pull it again when asked (`POST /api/refresh`). Written as `interval` is, or `0` to turn the
/// limit off; at most a day; 30 seconds when not given.
public enum MinRefresh {
    /// The limit when none is given: 30 seconds.
    public static let standard: Double = 30
    /// The longest accepted: one day.
    public static let maximum: Double = 86_400

    /// The seconds `node` says (`0` or `0s`: no limit), or a ``ConfigError`` at the value.
    public static func seconds(_ node: ConfigNode) throws -> Double {
        if let text = node.scalar?.trimmingCharacters(in: .whitespaces), text == "0" || text == "0s" { return 0 }
        return try PullInterval.duration(
            node, key: "min_refresh", minimum: 1, minimumText: "1s (or 0: no limit)", maximum: maximum,
            maximumText: "1d (one day)")
    }
}
