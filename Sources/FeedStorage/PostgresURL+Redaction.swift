import Foundation

/// Where a URL's user info ends, and the URL with its password (or its whole user info) removed,
/// for text that may not parse as a ``PostgresURL``.
extension PostgresURL {
    /// The parts of a `postgres://` URL: user info (`nil` without an `@`), `host[:port]`, the path
    /// (`/database`) and the query (after `?`, without it). No part is decoded.
    struct Parts {
        var userInfo: Substring?
        var hostPort: Substring
        var path: Substring
        var query: Substring
    }

    /// The query parameters libpq knows (and a few common ones): an `@` inside one of their values
    /// (`?sslrootcert=/a@b/root.crt`) does not end the user info.
    static let queryParameterNames: Set<String> = [
        "host", "hostaddr", "port", "user", "password", "dbname", "application_name", "connect_timeout", "options",
        "target_session_attrs", "sslmode", "sslrootcert", "sslcert", "sslkey", "sslpassword", "sslcrl", "sslsni",
        "sslnegotiation", "passfile", "channel_binding", "gssencmode",
    ]

    /// Splits `text` (`scheme://…`). The user info ends at the last `@` that is not inside a known
    /// query parameter's value, so a raw `/`, `?`, `#` or `@` in a password stays in the password.
    static func split(_ text: String) -> Parts {
        let rest = text.range(of: "://").map { text[$0.upperBound...] } ?? Substring(text)
        var afterUserInfo = rest
        var userInfo: Substring?
        if let at = userInfoEnd(in: rest) {
            userInfo = rest[..<at]
            afterUserInfo = rest[rest.index(after: at)...]
        }
        let hostEnd = afterUserInfo.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? afterUserInfo.endIndex
        let hostPort = afterUserInfo[..<hostEnd]
        var path = afterUserInfo[hostEnd...]
        var query = Substring("")
        if let mark = path.firstIndex(of: "?") {
            query = path[path.index(after: mark)...]
            path = path[..<mark]
        }
        return Parts(userInfo: userInfo, hostPort: hostPort, path: path, query: query)
    }

    /// The `@` ending the user info of `rest` (the URL after `://`): the last one not inside a known
    /// query parameter's value; `nil` when there is none.
    static func userInfoEnd(in rest: Substring) -> Substring.Index? {
        var candidate = rest.endIndex
        while let at = rest[..<candidate].lastIndex(of: "@") {
            if !isInsideQueryParameter(rest[..<at]) { return at }
            candidate = at
        }
        return nil
    }

    /// Whether `prefix` ends inside a known query parameter's value (`…?name=value` or `…&name=value`).
    private static func isInsideQueryParameter(_ prefix: Substring) -> Bool {
        guard let separator = prefix.lastIndex(where: { $0 == "?" || $0 == "&" }) else { return false }
        let parameter = prefix[prefix.index(after: separator)...]
        guard let equals = parameter.firstIndex(of: "=") else { return false }
        return queryParameterNames.contains(String(parameter[..<equals]))
    }

    /// `text` with `password` (percent-encoded, so no `${` in it is expanded) in its user info, when
    /// it names a user and carries no password of its own (in the user info or as `password=`);
    /// otherwise `text` unchanged.
    public static func withPassword(_ password: String, in text: String) -> String {
        guard let at = passwordPosition(in: text) else { return text }
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let encoded = password.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
        var text = text
        text.insert(contentsOf: ":" + encoded, at: at)
        return text
    }

    /// Whether `text` names a user and carries no password (see ``withPassword(_:in:)``).
    public static func lacksPassword(_ text: String) -> Bool { passwordPosition(in: text) != nil }

    /// Where a password would go in `text` (its user info's `@`), when it names a user and has none.
    static func passwordPosition(in text: String) -> String.Index? {
        guard let scheme = text.range(of: "://"), !text.contains("password=") else { return nil }
        let rest = text[scheme.upperBound...]
        guard let at = userInfoEnd(in: rest), at > rest.startIndex, !rest[..<at].contains(":") else { return nil }
        return at
    }

    /// `text` (a URL that may not parse, or a message holding one) with the password of its user
    /// info and any `password=` query parameter replaced by `***`; the user name stays.
    public static func redact(_ text: String) -> String {
        var text = text
        if let scheme = text.range(of: "://"), let at = userInfoEnd(in: text[scheme.upperBound...]),
            let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
        {
            text.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
        return redactingPasswordParameters(text)
    }

    /// `text` (a URL that may not parse) without its user info, and with any `password=` query
    /// parameter replaced by `***`: what a parse error shows. Any `@` after the scheme counts, so
    /// nothing of a password survives however malformed the URL is.
    public static func withoutUserInfo(_ text: String) -> String {
        var text = text
        if let scheme = text.range(of: "://") {
            let rest = text[scheme.upperBound...]
            if let at = userInfoEnd(in: rest) ?? rest.lastIndex(of: "@") {
                text.removeSubrange(scheme.upperBound...at)
            }
        } else if let at = text.lastIndex(of: "@") {
            text.removeSubrange(...at)
        }
        return redactingPasswordParameters(text)
    }

    /// `text` with the value of every `password=` parameter replaced by `***`.
    private static func redactingPasswordParameters(_ text: String) -> String {
        var text = text
        var searchFrom = text.startIndex
        while let range = text.range(of: "password=", range: searchFrom..<text.endIndex) {
            let end = text[range.upperBound...].firstIndex(of: "&") ?? text.endIndex
            text.replaceSubrange(range.upperBound..<end, with: "***")
            searchFrom = text.index(range.upperBound, offsetBy: 3)
        }
        return text
    }
}
