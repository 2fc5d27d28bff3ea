public import Foundation

/// Removes secrets from URLs and headers before they are printed or logged.
public enum Redaction {
    /// Query parameters whose values are secrets.
    public static let secretQueryParameters: Set<String> = [
        "access_token", "token", "consumer_key", "consumer_secret", "client_secret", "client_id",
        "api_key", "apikey", "key", "secret", "password", "sig", "signature",
    ]
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
        guard var components = URLComponents(string: url) else { return url }
        var changed = false
        if components.password != nil || components.user != nil {
            components.user = nil
            components.password = nil
            changed = true
        }
        if let items = components.percentEncodedQueryItems {
            let mapped = items.map { item -> URLQueryItem in
                if secretQueryParameters.contains(item.name.lowercased()), item.value != nil {
                    changed = true
                    return URLQueryItem(name: item.name, value: "REDACTED")
                }
                return item
            }
            components.percentEncodedQueryItems = mapped
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
                guard secretQueryParameters.contains(item.name.lowercased()), item.value == "REDACTED" else {
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

    /// The header value, or `REDACTED` when the field carries a secret.
    public static func redact(header name: String, value: String) -> String {
        secretHeaders.contains(name.lowercased()) ? "REDACTED" : value
    }
}
