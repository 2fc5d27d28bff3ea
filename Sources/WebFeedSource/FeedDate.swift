import FeedCore
import Foundation

/// Reads feed dates: RFC 822/1123 (RSS `pubDate`) with the variants found in the wild, and RFC
/// 3339 / W3C-DTF (Atom, JSON Feed, `dc:date`).
///
/// Accepted RFC 822 variants: no or a wrong weekday, one-digit days, two-digit years (< 50 is
/// 20xx), full or four-letter month names (`September`, `Sept`), no seconds, `.` instead of `:`,
/// a missing zone (UTC), zone names (`GMT`, `UT`, `Z`, US zones, `CEST`…), `+hhmm`, `+hh:mm`,
/// a `GMT+0200` style and trailing text in parentheses. A date that fits none of them reads as
/// no date: the entry stays undated rather than failing the feed.
enum FeedDate {
    /// A date in either family, or `nil`.
    static func parse(_ text: String) -> Date? {
        guard let trimmed = HTMLText.trimmed(text) else { return nil }
        if let first = trimmed.utf8.first, (48...57).contains(first), trimmed.utf8.count >= 10,
            let date = ISO8601.date(from: trimmed) ?? ISO8601.date(from: String(trimmed.prefix(10)))
                .flatMap({ trimmed.count == 10 ? $0 : nil })
        {
            return date
        }
        return rfc822(trimmed)
    }

    private static let months: [String: Int] = [
        "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10,
        "nov": 11, "dec": 12,
    ]

    private static let zones: [String: Int] = [
        "gmt": 0, "ut": 0, "utc": 0, "z": 0, "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6,
        "pst": -8, "pdt": -7, "bst": 1, "cet": 1, "cest": 2, "met": 1, "mest": 2, "eet": 2, "eest": 3, "jst": 9,
        "ist": 5, "akst": -9, "akdt": -8, "hst": -10, "aest": 10, "aedt": 11,
    ]

    /// RFC 822 and its broken variants.
    static func rfc822(_ text: String) -> Date? {
        var cleaned = text
        if let paren = cleaned.firstIndex(of: "(") { cleaned = String(cleaned[..<paren]) }
        var tokens = cleaned.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
        // Drop a weekday (right or wrong): "Sat,", "Saturday", "Tues".
        if let first = tokens.first, first.first?.isLetter == true,
            ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].contains(String(first.prefix(3)).lowercased())
        {
            tokens.removeFirst()
        }
        // RFC 850 (`14-Sep-25`), as old servers still write it.
        if let first = tokens.first, first.contains("-") {
            let parts = first.split(separator: "-").map(String.init)
            if parts.count == 3, Int(parts[0]) != nil, Int(parts[2]) != nil { tokens.replaceSubrange(0..<1, with: parts) }
        }
        guard tokens.count >= 3 else { return nil }
        var day: Int?
        var month: Int?
        // "07 Sep 2002" or "Sep 07 2002".
        if let d = Int(tokens[0]), let m = months[String(tokens[1].prefix(3)).lowercased()] {
            day = d
            month = m
        } else if let m = months[String(tokens[0].prefix(3)).lowercased()], let d = Int(tokens[1]) {
            day = d
            month = m
        }
        guard let day, let month, (1...31).contains(day), var year = Int(tokens[2]) else { return nil }
        if year < 100 { year += year < 50 ? 2000 : 1900 }
        var hour = 0, minute = 0, second = 0
        var zoneSeconds = 0
        var rest = Array(tokens.dropFirst(3))
        if let time = rest.first, time.contains(":") || time.contains(".") {
            let parts = time.split(whereSeparator: { $0 == ":" || $0 == "." }).map { Int($0) }
            guard parts.count >= 2, let h = parts[0], let m = parts[1] else { return nil }
            hour = h
            minute = m
            if parts.count >= 3, let s = parts[2] { second = s }
            rest.removeFirst()
        }
        if let zone = rest.first {
            guard let offset = zoneOffset(zone) else { return nil }
            zoneSeconds = offset
        }
        guard hour < 24, minute < 60, second < 61 else { return nil }
        if (1600...9999).contains(year) {
            // The Gregorian calendar's arithmetic (what `DateComponents` computes below, without its
            // cost): a day that does not exist and a 60th second are no date, as there.
            guard second < 60, day <= daysIn(month: month, year: year) else { return nil }
            let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
            return Date(timeIntervalSince1970: TimeInterval(seconds - zoneSeconds))
        }
        // Other years: Foundation's calendar (before 1582 it is Julian).
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(secondsFromGMT: 0)
        components.year = year
        components.month = month
        components.day = day
        components.hour = hour
        components.minute = minute
        components.second = second
        guard components.isValidDate, let date = components.date else { return nil }
        return date.addingTimeInterval(TimeInterval(-zoneSeconds))
    }

    /// Days in `month` (1–12) of `year` in the Gregorian calendar.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Seconds east of UTC for `+0200`, `-05:00`, `GMT+2`, `EST`; `nil` when unreadable.
    static func zoneOffset(_ zone: String) -> Int? {
        var text = zone.lowercased()
        if let named = zones[text] { return named * 3600 }
        for prefix in ["gmt", "utc", "ut"] where text.hasPrefix(prefix) && text.count > prefix.count {
            text.removeFirst(prefix.count)
            break
        }
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().filter(\.isNumber)
        guard !digits.isEmpty, digits.count <= 4, let value = Int(digits) else { return nil }
        let (hours, minutes) = digits.count <= 2 ? (value, 0) : (value / 100, value % 100)
        guard hours <= 14, minutes < 60 else { return nil }
        return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
}
