/// `--listen HOST:PORT`: where the server binds (`127.0.0.1:8080` by default; port 0 picks a free one).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host or IP address (without brackets for IPv6).
    public var host: String
    /// The TCP port; 0 asks the system for a free one.
    public var port: Int

    /// The default: loopback, port 8080.
    public static let standard = ListenAddress(host: "127.0.0.1", port: 8080)

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (loopback).
    public init(parsing text: String) throws(ServeError) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ServeError("--listen '\(text)': expected [IPV6]:PORT, e.g. [::1]:8080")
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw ServeError("--listen '\(text)': expected HOST:PORT, e.g. 127.0.0.1:8080")
            }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            if host.contains(":") {
                throw ServeError("--listen '\(text)': write an IPv6 address in brackets, e.g. [::1]:8080")
            }
        }
        guard let number = Int(port), (0...65_535).contains(number) else {
            throw ServeError("--listen '\(text)': the port must be a number from 0 to 65535")
        }
        self.host = host.isEmpty ? "127.0.0.1" : String(host)
        self.port = number
    }

    /// Whether only this machine can connect: `localhost`, 127.0.0.0/8 or `::1`.
    public var isLoopback: Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// `HOST:PORT` (`[HOST]:PORT` for IPv6).
    public var description: String { Self.authority(host: host, port: port) }

    /// `host:port`, with brackets around an IPv6 host.
    static func authority(host: String, port: Int) -> String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }
}
