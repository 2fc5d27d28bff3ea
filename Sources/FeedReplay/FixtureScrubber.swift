import Synchronization
import FeedCore
import Foundation

/// Removes credentials from recorded exchanges.
public enum FixtureScrubber {
    /// The exchange with secret headers and secret query values replaced by `REDACTED`, cookies dropped.
    public static func scrub(_ exchange: FixtureExchange) -> FixtureExchange {
        var copy = exchange
        copy.url = Redaction.redact(exchange.url)
        copy.requestHeaders = scrub(headers: exchange.requestHeaders)
        copy.responseHeaders = scrub(headers: exchange.responseHeaders).map { field in
            field.count == 2 && field[0].lowercased() == "link" ? [field[0], redactLinks(field[1])] : field
        }
        return copy
    }

    static func scrub(headers: [[String]]) -> [[String]] {
        headers.compactMap { field in
            guard field.count == 2 else { return nil }
            let name = field[0].lowercased()
            if name == "cookie" || name == "set-cookie" { return nil }
            return [field[0], Redaction.redact(header: field[0], value: field[1])]
        }
    }

    static func redactLinks(_ value: String) -> String {
        var out = value
        for link in LinkHeader.parse(value) {
            let redacted = Redaction.redact(link.target)
            if redacted != link.target { out = out.replacingOccurrences(of: link.target, with: redacted) }
        }
        return out
    }
}
