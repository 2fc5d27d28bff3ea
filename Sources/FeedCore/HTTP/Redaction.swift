public import Foundation
import Synchronization

/// Removes secrets from URLs and headers before they are printed or logged.
public enum Redaction {
    /// Query parameters whose values are secrets, by exact name (any case): redacted everywhere,
    /// the URLs the store keeps (resume points, HTTP cache keys) included. Names that could be
    /// cursors (`page_token`, `next_key`) are not here: the store must be able to request them
    /// again; shown URLs redact more (``isShownSecret(parameter:)``).
    public static let secretQueryParameters: Set<String> = [
        "access_token", "token", "consumer_key", "consumer_secret", "client_secret", "client_id",
        "api_key", "apikey", "key", "secret", "password", "sig", "signature", "private_token", "auth_token",
        "api_token", "apitoken", "access_key", "secret_key", "session_token", "sessionid", "session_id", "auth",
    ]

    /// Whether the value of query parameter `name` is redacted in every URL, stored ones included:
    /// ``secretQueryParameters`` and the names of `redact_params:`.
    public static func isSecret(parameter name: String) -> Bool {
        let lower = name.lowercased()
        return secretQueryParameters.contains(lower) || addedNames.withLock { $0.contains(lower) }
    }
    /// Header fields whose values are secrets.
    public static let secretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
    ]

    /// The URL with credentials in user-info and secret query values replaced by `REDACTED`.
    public static func redact(_ url: URL) -> String {
        redact(url.absoluteString)
    }

    /// The URL string with credentials in user-info and secret query values replaced by `REDACTED`.
    public static func redact(_ url: String) -> String {
        redacting(url) { isSecret(parameter: $0) }
    }

    /// `url` without user-info and with the value of every query parameter `secret` names (its
    /// name percent-decoded) replaced by `REDACTED`; unchanged when nothing was secret or it is no URL.
    private static func redacting(_ url: String, secret: (String) -> Bool) -> String {
        guard var components = URLComponents(string: url) else { return url }
        var changed = false
        if components.password != nil || components.user != nil {
            components.user = nil
            components.password = nil
            changed = true
        }
        if let items = components.percentEncodedQueryItems {
            components.percentEncodedQueryItems = items.map { item in
                guard item.value != nil, secret(item.name.removingPercentEncoding ?? item.name) else { return item }
                changed = true
                return URLQueryItem(name: item.name, value: "REDACTED")
            }
        }
        guard changed, let string = components.string else { return url }
        return string
    }

    /// `redacted` (a URL string from ``redact(_:)-(URL)``) with each `REDACTED` secret query value
    /// put back from the same parameter of `original` (e.g. the feed's first page URL), so a URL
    /// stored without its secrets can be requested again; `nil` when a secret cannot be restored.
    public static func restore(_ redacted: String, secretsFrom original: URL) -> URL? {
        guard var components = URLComponents(string: redacted) else { return nil }
        let known = URLComponents(url: original, resolvingAgainstBaseURL: true)?.percentEncodedQueryItems ?? []
        if let items = components.percentEncodedQueryItems {
            var restored: [URLQueryItem] = []
            for item in items {
                guard isSecret(parameter: item.name), item.value == "REDACTED" else {
                    restored.append(item)
                    continue
                }
                guard let value = known.first(where: { $0.name == item.name })?.value else { return nil }
                restored.append(URLQueryItem(name: item.name, value: value))
            }
            components.percentEncodedQueryItems = restored
        }
        return components.url
    }

    // MARK: - URLs as shown

    /// Parts of query parameter names that mark a secret in a URL that is shown (errors, `feeds`,
    /// `--verbose`, logs, pages): a name containing any of them, in any case, has its value
    /// redacted (`private_token`, `X-Amz-Signature`, `sessionid`, `apiKey`…).
    public static let secretNameParts = [
        "token", "key", "secret", "password", "auth", "sig", "signature", "session", "credential",
    ]

    /// The names feeds.yaml's `redact_params:` adds, for every URL this process shows or stores.
    private static let addedNames = Mutex<Set<String>>([])

    /// Adds query parameter names (`redact_params:`, compared without case) whose values are
    /// redacted wherever this process shows or stores a URL (list no cursor parameter: the store
    /// could not request its pages again). Names only accumulate: a name once listed stays
    /// redacted for the life of the process (a reloaded feeds.yaml can only add).
    public static func addShownSecretParameters(_ names: [String]) {
        guard !names.isEmpty else { return }
        addedNames.withLock { $0.formUnion(names.map { $0.lowercased() }) }
    }

    /// Whether a query parameter named `name` carries a secret in a URL that is shown.
    public static func isShownSecret(parameter name: String) -> Bool {
        if isSecret(parameter: name) { return true }
        let lower = name.lowercased()
        return secretNameParts.contains(where: { lower.contains($0) })
    }

    /// `url` as it may be shown to a user or written to a log: no user-info, and the value of every
    /// query parameter ``isShownSecret(parameter:)`` names replaced by `REDACTED`. Broader than
    /// ``redact(_:)-(String)`` (which also keys stored state, so it keeps its exact list).
    public static func shown(_ url: String) -> String {
        guard URLComponents(string: url)?.scheme != nil else { return url }
        return redacting(url) { isShownSecret(parameter: $0) }
    }

    /// `url` as it may be shown (``shown(_:)-(String)``).
    public static func shown(_ url: URL) -> String { shown(url.absoluteString) }

    /// `text` with every URL in it (a run of characters after `scheme://` up to white space, a
    /// quote or an angle bracket) passed through ``shown(_:)-(String)``: for messages quoted from
    /// a server or a library, which may name a URL with its secrets.
    public static func shownText(_ text: String) -> String {
        guard text.contains("://") else { return text }
        var result = ""
        var rest = Substring(text)
        while let marker = rest.range(of: "://") {
            // The scheme: the letters, digits, `+`, `-` and `.` right before `://`.
            var start = marker.lowerBound
            while start > rest.startIndex {
                let before = rest[rest.index(before: start)]
                guard before.isASCII, before.isLetter || before.isNumber || "+-.".contains(before) else { break }
                start = rest.index(before: start)
            }
            var end = marker.upperBound
            while end < rest.endIndex {
                let character = rest[end]
                if character.isWhitespace || "\"'<>`".contains(character) { break }
                end = rest.index(after: end)
            }
            // Sentence punctuation after a URL is not part of it, nor a `)` it did not open.
            while end > marker.upperBound {
                let last = rest[rest.index(before: end)]
                let unbalanced = last == ")" && !rest[start..<end].contains("(")
                guard ".,;:!?".contains(last) || unbalanced else { break }
                end = rest.index(before: end)
            }
            result += rest[..<start]
            let candidate = String(rest[start..<end])
            result += start == marker.lowerBound ? candidate : shown(candidate)
            rest = rest[end...]
        }
        return result + rest
    }

    /// The header value, or `REDACTED` when the field carries a secret.
    public static func redact(header name: String, value: String) -> String {
        secretHeaders.contains(name.lowercased()) ? "REDACTED" : value
    }
}
