import FeedCore
import Foundation

/// Reads feed dates: RFC 822/1123/2822 (RSS `pubDate`) with the variants found in the wild, and
/// W3C-DTF / ISO 8601 (Atom, JSON Feed, `dc:date`, `dcterms:*`), by hand over the UTF-8 bytes: no
/// formatter, no regular expression, no allocation for a date of the usual length.
///
/// RFC 822 family (this file): an optional weekday (right, wrong, full or abbreviated, with or
/// without a comma), day and month in either order, one- or two-digit days, full or abbreviated
/// month names (`September`, `Sept`), two-digit years (RFC 2822 §4.3: 00–49 is 20xx, 50–99 is
/// 19xx), three-digit years (+1900), RFC 850's `07-Sep-02`, asctime's `Sat Sep 7 00:00:01 2002`,
/// a time with or without seconds (`.` accepted for `:`), a zone that is a name (`UT`, `GMT`,
/// `Z`, US zones, `CEST`…), a military letter (feedparser's signs: `A`–`I`, `K`–`M` west, `N`–`Y`
/// east), `+hhmm`, `+hh:mm`, `+hh`, `GMT+0200` or missing (UTC), any whitespace between the
/// parts, and a trailing `(comment)`. W3C-DTF and ISO 8601 basic: ``iso8601(_:)``.
///
/// A date that fits none of them is no date (`nil`): the entry stays undated rather than failing
/// the feed, and the current time is never substituted.
enum FeedDate {
    /// A date in either family, or `nil`.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// ``parse(_:)`` over UTF-8 bytes.
    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return nil }
        let trimmed = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if trimmed.count >= 4, isDigit(trimmed[0]), isDigit(trimmed[1]), isDigit(trimmed[2]), isDigit(trimmed[3]),
            let date = iso8601(trimmed)
        {
            return date
        }
        return rfc822(trimmed)
    }

    /// Zone names, in minutes east of UTC (feedparser's table and the usual European and
    /// Asian abbreviations).
    private static let zones: [String: Int] = [
        "gmt": 0, "ut": 0, "utc": 0, "z": 0, "wet": 0, "bst": 60, "cet": 60, "met": 60, "cest": 120, "mest": 120,
        "eet": 120, "eest": 180, "msk": 180, "ist": 330, "jst": 540, "kst": 540, "hkt": 480, "sgt": 480,
        "aest": 600, "aedt": 660, "acst": 570, "awst": 480, "nzst": 720, "nzdt": 780,
        "adt": -180, "ast": -240, "at": -240, "edt": -240, "est": -300, "et": -300, "cdt": -300, "cst": -360,
        "ct": -360, "mdt": -360, "mst": -420, "mt": -420, "pdt": -420, "pst": -480, "pt": -480,
        "akst": -540, "akdt": -480, "hst": -600,
    ]

    /// RFC 822 and its broken variants (see the type's documentation).
    static func rfc822(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var scanner = Scanner(bytes: bytes)
        guard var token = scanner.next() else { return nil }
        // A weekday, right or wrong: "Sat,", "Saturday", "Tues".
        if isLetter(bytes[token.lowerBound]), weekday(bytes, token) {
            guard let next = scanner.next() else { return nil }
            token = next
        }
        var day: Int?
        var month: Int?
        var year: Int?
        var yearDigits = 0
        // RFC 850: "07-Sep-02".
        if isDigit(bytes[token.lowerBound]), bytes[token].contains(UInt8(ascii: "-")) {
            let parts = bytes[token].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
            guard parts.count == 3, let d = number(parts[0]), let m = monthNumber(parts[1]), let y = number(parts[2])
            else { return nil }
            (day, month, year, yearDigits) = (d, m, y, parts[2].count)
        } else if let d = number(bytes[token]) {
            // "07 Sep 2002"
            guard let next = scanner.next(), let m = monthNumber(bytes[next]) else { return nil }
            (day, month) = (d, m)
        } else if let m = monthNumber(bytes[token]) {
            // "Sep 07 2002", or asctime's "Sep 7 00:00:01 2002"
            guard let next = scanner.next(), let d = number(bytes[next]) else { return nil }
            (day, month) = (d, m)
        } else {
            return nil
        }
        var time: (Int, Int, Int)?
        if year == nil {
            guard var next = scanner.next() else { return nil }
            if bytes[next].contains(UInt8(ascii: ":")) {
                // asctime: the time before the year.
                guard let t = clock(bytes[next]), let after = scanner.next() else { return nil }
                time = t
                next = after
            }
            guard let y = number(bytes[next]) else { return nil }
            (year, yearDigits) = (y, next.count)
        }
        guard let day, let month, var year, (1...31).contains(day) else { return nil }
        if yearDigits <= 2 { year += year < 50 ? 2000 : 1900 } else if yearDigits == 3 { year += 1900 }
        var zoneMinutes = 0
        var next = scanner.next()
        if time == nil, let token = next, bytes[token].contains(UInt8(ascii: ":")) || bytes[token].contains(UInt8(ascii: ".")) {
            guard let t = clock(bytes[token]) else { return nil }
            time = t
            next = scanner.next()
        }
        if let token = next, bytes[token.lowerBound] != UInt8(ascii: "(") {
            guard let offset = zoneOffset(bytes, token, scanner: &scanner) else { return nil }
            zoneMinutes = offset
        }
        let (hour, minute, second) = time ?? (0, 0, 0)
        return makeDate(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, fraction: 0,
            zoneSeconds: zoneMinutes * 60)
    }

    /// Whether the token is a weekday: its first three letters name one.
    private static func weekday(_ bytes: UnsafeBufferPointer<UInt8>, _ token: Range<Int>) -> Bool {
        guard token.count >= 3 else { return false }
        let key = lower3(bytes, token.lowerBound)
        return key == tag("mon") || key == tag("tue") || key == tag("wed") || key == tag("thu") || key == tag("fri")
            || key == tag("sat") || key == tag("sun")
    }

    /// The month a name's first three letters give (`Sep`, `Sept`, `September`), or `nil`.
    static func monthNumber(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard text.count >= 3, isLetter(text[text.startIndex]) else { return nil }
        switch lower3(text.base, text.startIndex) {
        case tag("jan"): return 1
        case tag("feb"): return 2
        case tag("mar"): return 3
        case tag("apr"): return 4
        case tag("may"): return 5
        case tag("jun"): return 6
        case tag("jul"): return 7
        case tag("aug"): return 8
        case tag("sep"): return 9
        case tag("oct"): return 10
        case tag("nov"): return 11
        case tag("dec"): return 12
        default: return nil
        }
    }

    /// `hh:mm[:ss]` (or with `.`), each part one or two digits; `nil` when it is not a time.
    static func clock(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> (Int, Int, Int)? {
        let parts = text.split(omittingEmptySubsequences: false) { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ (1...2).contains($0.count) }),
            let hour = number(parts[0]), let minute = number(parts[1])
        else { return nil }
        let second = parts.count == 3 ? number(parts[2]) : 0
        guard let second else { return nil }
        return (hour, minute, second)
    }

    /// Minutes east of UTC for the zone token at `token` (`+0200`, `-05:00`, `+02`, `GMT+2`,
    /// `GMT +0200`, `EST`, a military letter); `nil` when unreadable.
    static func zoneOffset(_ bytes: UnsafeBufferPointer<UInt8>, _ token: Range<Int>, scanner: inout Scanner) -> Int? {
        var start = token.lowerBound
        let name = bytes[token].prefix { isLetter($0) }
        if name.count == token.count {
            let lowered = String(decoding: name, as: UTF8.self).lowercased()
            if let minutes = zones[lowered] { return minutes }
            if name.count == 1 { return military(bytes[start] | 0x20) }
            // "GMT +0200": the offset is the next token.
            guard isUTCName(lowered), let next = scanner.next() else { return nil }
            return numericOffset(bytes[next])
        }
        // "GMT+0200", "UTC-5"
        let prefix = String(decoding: name, as: UTF8.self).lowercased()
        guard name.isEmpty || isUTCName(prefix) else { return nil }
        start += name.count
        return numericOffset(bytes[start..<token.upperBound])
    }

    /// Whether a lowercased zone name is one a numeric offset may follow (`GMT+2`).
    private static func isUTCName(_ name: String) -> Bool { name == "gmt" || name == "utc" || name == "ut" }

    /// A military zone letter (`a`–`z`, lowercased), with feedparser's signs.
    private static func military(_ letter: UInt8) -> Int? {
        switch letter {
        case UInt8(ascii: "z"): 0
        case UInt8(ascii: "a")...UInt8(ascii: "i"): -Int(letter - UInt8(ascii: "a") + 1) * 60
        case UInt8(ascii: "k")...UInt8(ascii: "m"): -Int(letter - UInt8(ascii: "k") + 10) * 60
        case UInt8(ascii: "n")...UInt8(ascii: "y"): Int(letter - UInt8(ascii: "n") + 1) * 60
        default: nil
        }
    }

    /// `+hhmm`, `-hh:mm`, `+hh`, `+h` as minutes east of UTC.
    static func numericOffset(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard let sign = text.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        var digits = 0
        var value = 0
        for byte in text.dropFirst() {
            if byte == UInt8(ascii: ":") { continue }
            guard isDigit(byte), digits < 4 else { return nil }
            value = value * 10 + Int(byte - 48)
            digits += 1
        }
        guard digits > 0 else { return nil }
        let (hours, minutes) = digits <= 2 ? (value, 0) : (value / 100, value % 100)
        guard hours <= 14, minutes < 60 else { return nil }
        return (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 60 + minutes)
    }

    /// A date from its parts, or `nil` when the parts name no instant (the 31st of April, 24:00,
    /// a 60th second).
    static func makeDate(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, fraction: Double, zoneSeconds: Int
    ) -> Date? {
        guard (1...12).contains(month), day >= 1, hour < 24, minute < 60, second < 60 else { return nil }
        if (1600...9999).contains(year) {
            // The Gregorian calendar's arithmetic (what `DateComponents` computes below, without its cost).
            guard day <= daysIn(month: month, year: year) else { return nil }
            let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
            return Date(timeIntervalSince1970: TimeInterval(seconds - zoneSeconds) + fraction)
        }
        // Other years: Foundation's calendar (before 1582 it is Julian).
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(secondsFromGMT: 0)
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, second)
        guard components.isValidDate, let date = components.date else { return nil }
        return date.addingTimeInterval(TimeInterval(-zoneSeconds) + fraction)
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

    /// Splits a date into tokens at whitespace and commas.
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        /// The next token's range, or `nil` at the end.
        mutating func next() -> Range<Int>? {
            while index < bytes.count, isSeparator(bytes[index]) { index += 1 }
            guard index < bytes.count else { return nil }
            let start = index
            while index < bytes.count, !isSeparator(bytes[index]) { index += 1 }
            return start..<index
        }

        private func isSeparator(_ byte: UInt8) -> Bool { isSpace(byte) || byte == UInt8(ascii: ",") }
    }

    /// A decimal number of 1 to 9 digits, or `nil`.
    static func number<C: Collection<UInt8>>(_ text: C) -> Int? {
        guard !text.isEmpty, text.count <= 9 else { return nil }
        var value = 0
        for byte in text {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
    static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 97 && (byte | 0x20) <= 122 }
    static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 }

    /// Three bytes from `index`, lowercased, as one number.
    private static func lower3(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> UInt32 {
        UInt32(bytes[index] | 0x20) << 16 | UInt32(bytes[index + 1] | 0x20) << 8 | UInt32(bytes[index + 2] | 0x20)
    }

    /// ``lower3(_:_:)`` of a three-letter lowercase literal.
    private static func tag(_ name: StaticString) -> UInt32 {
        let p = name.utf8Start
        return UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
    }
}
