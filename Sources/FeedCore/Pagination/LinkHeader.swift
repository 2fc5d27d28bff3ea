import Foundation

/// An RFC 8288 `Link` header parser that accepts what real servers send.
///
/// It splits link-values only on commas outside `<…>` and quoted strings, accepts quoted and
/// unquoted parameter values, several relation types in one `rel`, `rel*` extended values,
/// stray separators and whitespace, and runs in linear time on any input.
public enum LinkHeader {
    /// Parses every link-value of one or more `Link` header field values.
    public static func parse(_ values: [String]) -> [WebLink] {
        values.flatMap(parse)
    }

    /// Parses one `Link` header field value.
    public static func parse(_ value: String) -> [WebLink] {
        let s = Array(value.utf8)
        var links: [WebLink] = []
        var i = 0
        let n = s.count
        func isSpace(_ c: UInt8) -> Bool { c == 32 || c == 9 || c == 10 || c == 13 }
        func skipSpace() { while i < n, isSpace(s[i]) { i += 1 } }
        func text(_ range: Range<Int>) -> String { String(decoding: s[range], as: UTF8.self) }

        while i < n {
            // Find the next '<' that starts a link-value; anything else up to it is noise.
            while i < n, s[i] != UInt8(ascii: "<") { i += 1 }
            guard i < n else { break }
            let start = i + 1
            var end = start
            while end < n, s[end] != UInt8(ascii: ">") { end += 1 }
            guard end < n else { break }  // unterminated target: ignore the rest
            let target = text(start..<end).trimmingCharacters(in: .whitespaces)
            i = end + 1
            var parameters: [(name: String, value: String)] = []
            // Parameters: ; name [= value], until a ',' outside quotes or the end.
            while true {
                skipSpace()
                guard i < n else { break }
                if s[i] == UInt8(ascii: ",") {
                    i += 1
                    break
                }
                if s[i] != UInt8(ascii: ";") {
                    // Junk between parameters: skip to the next separator.
                    while i < n, s[i] != UInt8(ascii: ";"), s[i] != UInt8(ascii: ","), s[i] != UInt8(ascii: "<") {
                        i += 1
                    }
                    if i < n, s[i] == UInt8(ascii: "<") { break }
                    continue
                }
                i += 1
                skipSpace()
                let nameStart = i
                while i < n, !isSpace(s[i]), s[i] != UInt8(ascii: "="), s[i] != UInt8(ascii: ";"),
                    s[i] != UInt8(ascii: ",")
                {
                    i += 1
                }
                var name = text(nameStart..<i).lowercased()
                skipSpace()
                var value = ""
                if i < n, s[i] == UInt8(ascii: "=") {
                    i += 1
                    skipSpace()
                    if i < n, s[i] == UInt8(ascii: "\"") {
                        i += 1
                        var bytes: [UInt8] = []
                        while i < n, s[i] != UInt8(ascii: "\"") {
                            if s[i] == UInt8(ascii: "\\"), i + 1 < n { i += 1 }
                            bytes.append(s[i])
                            i += 1
                        }
                        if i < n { i += 1 }
                        value = String(decoding: bytes, as: UTF8.self)
                    } else {
                        let valueStart = i
                        while i < n, s[i] != UInt8(ascii: ";"), s[i] != UInt8(ascii: ",") { i += 1 }
                        value = text(valueStart..<i).trimmingCharacters(in: .whitespaces)
                    }
                }
                if name.hasSuffix("*") {
                    // RFC 8187 ext-value: charset'lang'pct-encoded.
                    name.removeLast()
                    let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                    if pieces.count == 3 { value = String(pieces[2]).removingPercentEncoding ?? String(pieces[2]) }
                }
                if !name.isEmpty { parameters.append((name: name, value: value)) }
            }
            links.append(WebLink(target: target, parameters: parameters))
        }
        return links
    }

    /// The first link whose relations include `rel` (case-insensitive).
    public static func first(_ rel: String, in links: [WebLink]) -> WebLink? {
        let lower = rel.lowercased()
        return links.first { $0.relations.contains(lower) }
    }
}
