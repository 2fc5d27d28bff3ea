import Foundation

extension FeedDate {
    /// W3C-DTF (the ISO 8601 profile of Atom, RSS 1.0's `dc:date` and JSON Feed) with every
    /// reduced precision it allows, and ISO 8601's basic format:
    ///
    /// - `2003`, `2003-12`, `2003-12-13` (midnight UTC on the first day missing);
    /// - `2003-12-13T18:30Z`, `2003-12-13T18:30:02+01:00`, fractional seconds (`.25`, `,25`),
    ///   `+0100`, `+01`, a space or a lowercase `t` for `T`, no zone (UTC);
    /// - basic: `20031213`, `20031213T1830Z`, `20031213T183002Z`, `20031213T183002+0100`.
    ///
    /// `nil` for anything else, and for parts out of range (month 13, the 31st of April, 24:00).
    static func iso8601(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var cursor = Cursor(bytes: bytes)
        guard let year = cursor.digits(4) else { return nil }
        var month = 1
        var day = 1
        let extended = cursor.take(UInt8(ascii: "-"))
        if extended {
            guard let m = cursor.digits(2) else { return nil }
            month = m
            if cursor.take(UInt8(ascii: "-")) {
                guard let d = cursor.digits(2) else { return nil }
                day = d
            } else if !cursor.atEnd {
                return nil
            }
        } else if !cursor.atEnd {
            // Basic: the full date, always.
            guard let m = cursor.digits(2), let d = cursor.digits(2) else { return nil }
            (month, day) = (m, d)
        }
        var hour = 0
        var minute = 0
        var second = 0
        var fraction = 0.0
        var zoneSeconds = 0
        if !cursor.atEnd {
            guard day > 0, cursor.take(UInt8(ascii: "T")) || cursor.take(UInt8(ascii: "t")) || cursor.take(32)
            else { return nil }
            guard let h = cursor.digits(2) else { return nil }
            hour = h
            guard extended ? cursor.take(UInt8(ascii: ":")) : true, let m = cursor.digits(2) else { return nil }
            minute = m
            if extended ? cursor.take(UInt8(ascii: ":")) : cursor.peekDigit {
                guard let s = cursor.digits(2) else { return nil }
                second = s
                if cursor.take(UInt8(ascii: ".")) || cursor.take(UInt8(ascii: ",")) {
                    guard let f = cursor.fraction() else { return nil }
                    fraction = f
                }
            }
            while cursor.take(32) {}
            if !cursor.atEnd {
                guard let zone = cursor.zone() else { return nil }
                zoneSeconds = zone
            }
        }
        guard cursor.atEnd else { return nil }
        return makeDate(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, fraction: fraction,
            zoneSeconds: zoneSeconds)
    }

    /// A position in an ISO 8601 date's bytes.
    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index == bytes.count }
        var peekDigit: Bool { index < bytes.count && isDigit(bytes[index]) }

        /// Consumes `byte` when it is next.
        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// Exactly `count` digits as a number.
        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<count {
                let byte = bytes[index + offset]
                guard isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }

        /// The digits of a decimal fraction (at least one).
        mutating func fraction() -> Double? {
            var value = 0.0
            var scale = 0.1
            let start = index
            while index < bytes.count, isDigit(bytes[index]) {
                value += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            return index > start ? value : nil
        }

        /// `Z`, `+hh:mm`, `+hhmm` or `+hh` as seconds east of UTC.
        mutating func zone() -> Int? {
            if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) { return 0 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") else {
                return nil
            }
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2), hours <= 14 else { return nil }
            _ = take(UInt8(ascii: ":"))
            let minutes = atEnd ? 0 : digits(2)
            guard let minutes, minutes < 60 else { return nil }
            return sign * (hours * 3600 + minutes * 60)
        }
    }
}
