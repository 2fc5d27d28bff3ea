import Foundation

/// Where a PostgreSQL store is: `postgres://user[:password]@host[:port]/database` (or `postgresql://`),
/// or the Unix-socket form `postgres://user@/database?host=/path/to/socketdir`.
///
/// The password comes from the URL (percent-encoded; `${VAR}` is replaced from the environment
/// first), else from ``init(_:environment:passwordFile:)``'s `passwordFile` contents, else from
/// `PGPASSWORD`. It is never part of ``redacted``, the form every message shows.
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    /// The user name.
    public var user: String
    /// The password, if any (never printed).
    public var password: String?
    /// The host name or address; `nil` for a Unix socket.
    public var host: String?
    /// The TCP port (also names the socket file `.s.PGSQL.<port>` in ``socketDirectory``).
    public var port: Int
    /// The directory holding the server's Unix socket, for the socket form.
    public var socketDirectory: String?
    /// The database name.
    public var database: String

    /// Whether `text` names a PostgreSQL store (`postgres://` or `postgresql://`) rather than a file.
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Parses `text`; `${VAR}` references are replaced from `environment` first.
    ///
    /// - Parameters:
    ///   - passwordFile: The password read from a `_file` secret, used when the URL carries none.
    /// - Throws: ``StoreError`` (``StoreError/Kind/cannotOpen``) naming the redacted URL when it is not one.
    public init(_ text: String, environment: [String: String] = [:], passwordFile: String? = nil) throws {
        let expanded = Self.interpolate(text, environment: environment)
        let shown = Self.redact(expanded)
        func invalid(_ detail: String) -> StoreError {
            StoreError(kind: .cannotOpen, path: shown, operation: "parse the store URL", detail: detail)
        }
        guard Self.isPostgres(expanded) else { throw invalid("not a postgres:// or postgresql:// URL") }
        let rest = expanded.drop(while: { $0 != ":" }).dropFirst(3)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var tail = rest[authorityEnd...]
        var query = Substring("")
        if let mark = tail.firstIndex(of: "?") {
            query = tail[tail.index(after: mark)...]
            tail = tail[..<mark]
        }
        var userInfo = Substring("")
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
        }
        var user = userInfo
        var password: String?
        if let colon = userInfo.firstIndex(of: ":") {
            user = userInfo[..<colon]
            password = String(userInfo[userInfo.index(after: colon)...]).removingPercentEncoding
        }
        var userName = String(user).removingPercentEncoding ?? String(user)
        var port = 5432
        var host: String? = hostPort.isEmpty ? nil : String(hostPort)
        if hostPort.hasPrefix("[") {
            // [v6]:port
            if let close = hostPort.firstIndex(of: "]") {
                host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
                let after = hostPort[hostPort.index(after: close)...]
                if after.hasPrefix(":") {
                    guard let value = Int(after.dropFirst()) else { throw invalid("the port is not a number") }
                    port = value
                }
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            guard let value = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(value) else {
                throw invalid("the port is not a number from 1 to 65535")
            }
            port = value
            host = hostPort[..<colon].isEmpty ? nil : String(hostPort[..<colon])
        }
        var socketDirectory: String?
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = String(parts[1]).removingPercentEncoding ?? String(parts[1])
            switch parts[0] {
            case "host" where value.hasPrefix("/"): socketDirectory = value
            case "host": host = value
            case "port":
                guard let number = Int(value) else { throw invalid("the port is not a number") }
                port = number
            case "user": userName = value
            case "password": password = value
            default: continue
            }
        }
        let database = String(tail.drop(while: { $0 == "/" })).removingPercentEncoding ?? ""
        guard !database.isEmpty else { throw invalid("no database name (postgres://user@host:port/DATABASE)") }
        guard !userName.isEmpty else { throw invalid("no user name (postgres://USER@host:port/database)") }
        if host == nil && socketDirectory == nil {
            throw invalid("no host: give host[:port], or ?host=/path/to/socketdir for a Unix socket")
        }
        if socketDirectory != nil { host = nil }
        self.user = userName
        self.password = (password?.isEmpty == false ? password : nil) ?? passwordFile ?? environment["PGPASSWORD"]
        self.host = host
        self.port = port
        self.socketDirectory = socketDirectory
        self.database = database
    }

    /// The Unix socket file, for the socket form.
    public var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    /// The URL without its password: what every message shows.
    public var redacted: String {
        let address = socketDirectory.map { "@/\(database)?host=\($0)" + (port == 5432 ? "" : "&port=\(port)") }
        return "postgres://\(user)" + (address ?? "@\(host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? ""):\(port)/\(database)")
    }

    /// Where the server is, for a connection error: `host:port/database` or the socket path.
    public var endpoint: String {
        if let socketPath { return "\(socketPath) (database \(database))" }
        return "\(host ?? ""):\(port)/\(database)"
    }

    /// ``redacted``.
    public var description: String { redacted }

    /// `text` with `${VAR}` replaced from `environment` (unset: empty).
    static func interpolate(_ text: String, environment: [String: String]) -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "${") {
            result += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                result += rest[start.lowerBound...]
                return result
            }
            result += environment[String(rest[start.upperBound..<end])] ?? ""
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
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
        let authorityEnd = text[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? text.endIndex
        guard let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@"), at > scheme.upperBound,
            !text[scheme.upperBound..<at].contains(":")
        else { return nil }
        return at
    }

    /// `text` (a URL that may not parse) with the password of its user info and any `password=`
    /// query parameter replaced by `***`.
    public static func redact(_ text: String) -> String {
        var text = text
        if let scheme = text.range(of: "://") {
            let authorityEnd = text[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? text.endIndex
            if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
                let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
            {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
        }
        if let range = text.range(of: "password=") {
            let end = text[range.upperBound...].firstIndex(of: "&") ?? text.endIndex
            text.replaceSubrange(range.upperBound..<end, with: "***")
        }
        return text
    }
}
