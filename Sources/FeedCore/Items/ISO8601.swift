public import Foundation

/// A fast, lenient ISO 8601 / RFC 3339 timestamp parser and formatter.
public enum ISO8601 {
    /// Parses `2011-01-26T19:01:12Z`, `2017-10-02T13:43:27-04:00`, fractional seconds, `+0000`,
    /// a space instead of `T`, and a bare date (`2024-01-31`, midnight UTC).
    public static func date(from text: String) -> Date? {
        var utf8 = Array(text.utf8)
        while let last = utf8.last, last == 32 { utf8.removeLast() }
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= utf8.count else { return nil }
            var value = 0
            for offset in 0..<count {
                let c = utf8[index + offset]
                guard c >= 48, c <= 57 else { return nil }
                value = value * 10 + Int(c - 48)
            }
            index += count
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < utf8.count, utf8[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        var offsetSeconds = 0
        if index < utf8.count {
            guard utf8[index] == 84 || utf8[index] == 116 || utf8[index] == 32 else { return nil }
            index += 1
            guard let h = digits(2), expect(58), let m = digits(2) else { return nil }
            hour = h
            minute = m
            if expect(58) {
                guard let s = digits(2) else { return nil }
                second = s
                if index < utf8.count, utf8[index] == 46 || utf8[index] == 44 {
                    index += 1
                    var scale = 0.1
                    var any = false
                    while index < utf8.count, utf8[index] >= 48, utf8[index] <= 57 {
                        fraction += Double(utf8[index] - 48) * scale
                        scale /= 10
                        index += 1
                        any = true
                    }
                    guard any else { return nil }
                }
            }
            guard hour < 24, minute < 60, second < 61 else { return nil }
            if index < utf8.count {
                let sign = utf8[index]
                if sign == 90 || sign == 122 {
                    index += 1
                } else if sign == 43 || sign == 45 {
                    index += 1
                    guard let oh = digits(2) else { return nil }
                    _ = expect(58)
                    let om = digits(2) ?? 0
                    offsetSeconds = (oh * 3600 + om * 60) * (sign == 45 ? -1 : 1)
                } else {
                    return nil
                }
            }
            guard index == utf8.count else { return nil }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// `2024-01-31T12:00:00Z` (UTC, whole seconds).
    public static func string(from date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        var days = total / 86_400
        var rest = total % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (y, m, d) = civilFromDays(days)
        if (0...9999).contains(y) {
            // Every stored date: digits written in place (the padded pieces cost six strings).
            var bytes: [UInt8] = Array("0000-00-00T00:00:00Z".utf8)
            func put(_ n: Int, at end: Int) {
                var n = n
                var index = end
                while n > 0 {
                    bytes[index] = UInt8(ascii: "0") + UInt8(n % 10)
                    n /= 10
                    index -= 1
                }
            }
            put(y, at: 3)
            put(m, at: 6)
            put(d, at: 9)
            put(rest / 3600, at: 12)
            put(rest % 3600 / 60, at: 15)
            put(rest % 60, at: 18)
            return String(decoding: bytes, as: UTF8.self)
        }
        func pad(_ n: Int, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rest / 3600, 2)):\(pad(rest % 3600 / 60, 2)):\(pad(rest % 60, 2))Z"
    }

    // Howard Hinnant's civil-date algorithms.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// (year, month, day) of day `z` since 1970-01-01 (Howard Hinnant's civil-from-days).
    package static func civilFromDays(_ z: Int) -> (Int, Int, Int) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
