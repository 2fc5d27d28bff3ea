import Foundation

/// The secrets an exec plugin was given — every value of its environment (`env:` values, tokens
/// from `${VAR}`, the text of `NAME_file` secret files) of 4 or more characters — and their
/// removal from anything quoted from the plugin's standard output or error before it is printed,
/// stored or served.
///
/// Each value is replaced by `REDACTED` as written and as a JSON string escapes it (`\"`, `\\`,
/// `\/`), longest values first, so a value that contains another is removed whole.
public struct PluginSecrets: Sendable {
    /// The forms replaced, longest first.
    let forms: [String]

    /// The secrets of a plugin whose environment is `environment`.
    public init(_ environment: [String: String]) {
        var forms = Set<String>()
        for value in environment.values where value.count >= 4 {
            forms.insert(value)
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            forms.insert(escaped)
            forms.insert(escaped.replacingOccurrences(of: "/", with: "\\/"))
        }
        self.forms = forms.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// Whether there is nothing to redact.
    public var isEmpty: Bool { forms.isEmpty }

    /// `text` with every secret replaced by `REDACTED`.
    public func redact(_ text: String) -> String {
        var out = text
        for form in forms where out.contains(form) {
            out = out.replacingOccurrences(of: form, with: "REDACTED")
        }
        return out
    }

    /// ``redact(_:)``, then `text` cut to its first `limit` characters (the cut made after the
    /// redaction, so it can never leave a piece of a secret).
    /// A `REDACTED` the cut would split is kept whole.
    public func redact(_ text: String, cutAt limit: Int) -> String {
        let clean = redact(text)
        guard clean.count > limit else { return clean }
        var end = clean.index(clean.startIndex, offsetBy: limit - 1)
        var search = clean.startIndex..<clean.endIndex
        while let marker = clean.range(of: "REDACTED", range: search), marker.lowerBound < end {
            if marker.upperBound > end { end = marker.upperBound }
            search = marker.upperBound..<clean.endIndex
        }
        return end == clean.endIndex ? clean : clean[..<end] + "…"
    }
}
