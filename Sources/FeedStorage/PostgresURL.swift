import Foundation

/// Where a PostgreSQL store is: `postgres://user[:password]@host[:port]/database` (or `postgresql://`),
/// or the Unix-socket form `postgres://user@/database?host=/path/to/socketdir`, with libpq's TLS
/// parameters in the query (``PostgresTLS``: `sslmode`, `sslrootcert`, `sslcert`, `sslkey`).
///
/// The password comes from the URL (percent-encoded, or raw where that is unambiguous: a raw `/`,
/// `?`, `#` or `@` in it is taken as the password's up to the last `@` before the host; `${VAR}` is
/// replaced from the environment first), else from ``init(_:environment:passwordFile:)``'s
/// `passwordFile` contents, else from `PGPASSWORD`. It is never part of ``redacted``, the form every
/// message shows, nor of a parse error (which shows the URL without its user info).
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
    /// How TCP connections use TLS (a Unix socket never does, as with libpq).
    public var tls: PostgresTLS

    /// Whether `text` names a PostgreSQL store (`postgres://` or `postgresql://`) rather than a file.
    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Parses `text`; `${VAR}` references are replaced from `environment` first.
    ///
    /// - Parameters:
    ///   - environment: `${VAR}` values, `PGPASSWORD`, the `PGSSL*` variables and `HOME` (for `~/`).
    ///   - passwordFile: The password read from a `_file` secret, used when the URL carries none.
    /// - Throws: ``StoreError`` (``StoreError/Kind/cannotOpen``) naming the URL without its user
    ///   info (``withoutUserInfo(_:)``) when it is not one.
    public init(_ text: String, environment: [String: String] = [:], passwordFile: String? = nil) throws {
        let expanded = Self.interpolate(text, environment: environment)
        let shown = Self.withoutUserInfo(expanded)
        func invalid(_ detail: String) -> StoreError {
            StoreError(kind: .cannotOpen, path: shown, operation: "parse the store URL", detail: detail)
        }
        guard Self.isPostgres(expanded) else { throw invalid("not a postgres:// or postgresql:// URL") }
        let parts = Self.split(expanded)
        var user = Substring("")
        var password: String?
        if let userInfo = parts.userInfo {
            user = userInfo
            if let colon = userInfo.firstIndex(of: ":") {
                user = userInfo[..<colon]
                password = Self.decoded(userInfo[userInfo.index(after: colon)...])
            }
        }
        var userName = Self.decoded(user)
        let hostPort = parts.hostPort
        var port = 5432
        var host: String? = hostPort.isEmpty ? nil : Self.decoded(hostPort)
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
            host = hostPort[..<colon].isEmpty ? nil : Self.decoded(hostPort[..<colon])
        }
        var socketDirectory: String?
        var tlsParameters: [String: String] = [:]
        for pair in parts.query.split(separator: "&") {
            let pieces = pair.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2 else { continue }
            let value = Self.decoded(pieces[1])
            switch pieces[0] {
            case "host" where value.hasPrefix("/"): socketDirectory = value
            case "host": host = value
            case "port":
                guard let number = Int(value), (1...65535).contains(number) else {
                    throw invalid("the port is not a number from 1 to 65535")
                }
                port = number
            case "user": userName = value
            case "password": password = value
            case let name where PostgresTLS.parameterNames.contains(String(name)): tlsParameters[String(name)] = value
            default: continue
            }
        }
        let database = Self.decoded(parts.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw invalid("no database name (postgres://user@host:port/DATABASE)") }
        guard !userName.isEmpty else { throw invalid("no user name (postgres://USER@host:port/database)") }
        if host == nil && socketDirectory == nil {
            throw invalid("no host: give host[:port], or ?host=/path/to/socketdir for a Unix socket")
        }
        do {
            tls = try PostgresTLS(parameters: tlsParameters, environment: environment)
        } catch {
            throw invalid(error.description)
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

    /// `text` percent-decoded; as it is when it holds an invalid escape (a raw `%`).
    static func decoded(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }
}
