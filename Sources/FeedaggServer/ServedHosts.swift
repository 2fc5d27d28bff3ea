import FeedCore
import Foundation
import Synchronization

/// The names this server answers to: which `Host` headers name it and which origins are its own.
///
/// A request whose `Host` names something else is refused (421) before any route runs: a web page
/// on `attacker.example` whose name an attacker re-pointed at 127.0.0.1 (DNS rebinding) reaches the
/// socket with `Host: attacker.example` and gets no data. The names accepted:
/// - the listening address itself with the bound port;
/// - for a loopback or wildcard listener, `localhost`, `127.0.0.1` and `[::1]` with the bound port;
/// - for a wildcard listener (`0.0.0.0`, `::`), any IP address literal with the bound port (a
///   rebinding attack needs a name, and an IP literal is its own origin);
/// - the authority of every `--public-url` (what a reverse proxy forwards as `Host`).
///
/// Port 80 may be left out of the `Host` (`http://localhost/`), as may a public URL's scheme default.
final class ServedHosts: Sendable {
    /// `--listen`.
    let listen: ListenAddress
    /// `--public-url`, in the order given.
    let publicURLs: [PublicOrigin]
    /// The port the socket is bound to (``listen``'s, or the one the system picked for port 0).
    private let bound: Mutex<Int>

    /// The names of a server listening on `listen`, reachable at `publicURLs`.
    init(listen: ListenAddress, publicURLs: [PublicOrigin]) {
        self.listen = listen
        self.publicURLs = publicURLs
        bound = Mutex(listen.port)
        ownHost = Authority.normalized(listen.host)
    }

    /// ``listen``'s host, normalized (``Authority/normalized(_:)``).
    private let ownHost: String

    /// Records the port the socket got (port 0 asks the system for one).
    func bound(to port: Int) { bound.withLock { $0 = port } }

    /// The port the socket is bound to.
    var port: Int { bound.withLock { $0 } }

    /// The public origin whose authority `host` (a `Host` header) is, if any.
    func publicOrigin(host: String) -> PublicOrigin? {
        guard let authority = Authority(host) else { return nil }
        return publicURLs.first { $0.isNamed(by: authority) }
    }

    /// Whether `host` (a request's `Host` header, `nil` when it sent none) names this server.
    func names(host header: String?) -> Bool {
        guard let header, let authority = Authority(header) else { return false }
        if publicURLs.contains(where: { $0.isNamed(by: authority) }) { return true }
        guard authority.port ?? 80 == port else { return false }
        let own = ownHost
        if authority.host == own { return true }
        let wildcard = own == "0.0.0.0" || own == "::"
        if listen.isLoopback || wildcard, Self.loopbackNames.contains(authority.host) { return true }
        return wildcard && authority.isIPAddress
    }

    /// The loopback names a local client uses.
    static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "::1"]
}

/// A `--public-url`: the origin (scheme, host, port) under which a reverse proxy serves this server.
struct PublicOrigin: Sendable, Equatable {
    /// `http` or `https`.
    let scheme: String
    /// Host and port, as a `Host` header names them (the port `nil` when it is the scheme's default).
    let authority: Authority
    /// `scheme://host[:port]`, no trailing slash: what links and the same-origin check use.
    let origin: String
    /// The scheme's default port (443 or 80).
    let defaultPort: Int

    /// Whether a `Host` of `authority` names this origin (the default port given or left out).
    func isNamed(by other: Authority) -> Bool {
        other.host == authority.host && (other.port ?? defaultPort) == (authority.port ?? defaultPort)
    }

    /// Parses `--public-url URL`: `http` or `https`, a host, an optional port, no path beyond `/`,
    /// no user-info, query or fragment.
    init(parsing text: String) throws(ServeError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else {
            throw ServeError("--public-url '\(text)': expected http(s)://HOST[:PORT], e.g. https://feeds.example.net")
        }
        guard components.user == nil, components.password == nil, components.query == nil, components.fragment == nil,
            components.path.isEmpty || components.path == "/"
        else {
            throw ServeError(
                "--public-url '\(Redaction.shown(text))': give the origin only (http(s)://HOST[:PORT]); "
                    + "feedagg serve is served at the root of its origin, not under a path")
        }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = components.port.flatMap { $0 == defaultPort ? nil : $0 }
        let authorityText = ListenAddress.authority(host: host, port: port ?? defaultPort)
        guard var authority = Authority(authorityText) else { throw ServeError("--public-url '\(text)': not a host name") }
        authority.port = port
        self.scheme = scheme
        self.defaultPort = defaultPort
        self.authority = authority
        origin = scheme + "://" + authority.description
    }
}

/// The host and port of a `Host` header or an origin, compared without case and without a
/// trailing dot (`Example.NET.:8080` is `example.net:8080`).
struct Authority: Sendable, Equatable, CustomStringConvertible {
    /// The host, lower case, IPv6 without brackets.
    var host: String
    /// The port, `nil` when absent.
    var port: Int?

    /// Parses `host`, `host:port`, `[v6]` or `[v6]:port`; `nil` for anything else (user-info,
    /// a path, spaces, an empty host, a port outside 1...65535).
    init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= 255, text.utf8.allSatisfy(Self.allowed) else { return nil }
        var hostPart = Substring(text)
        var portPart: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portPart = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            guard text.firstIndex(of: ":") == colon else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        if let portPart {
            guard let number = Int(portPart), (1...65_535).contains(number) else { return nil }
            port = number
        }
        host = Self.normalized(String(hostPart))
        guard !host.isEmpty else { return nil }
    }

    /// Whether `byte` may appear in a `Host` header: printable ASCII other than a space and
    /// `/?#@\\"<>` (a path, a query, user-info, quoting).
    private static func allowed(_ byte: UInt8) -> Bool {
        guard byte > 0x20, byte < 0x80 else { return false }
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "@"), UInt8(ascii: "\\"),
            UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"):
            return false
        default: return true
        }
    }

    /// `host` in lower case without a trailing dot or IPv6 brackets.
    static func normalized(_ host: String) -> String {
        var text = host.lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Whether the host is an IPv4 or IPv6 address literal rather than a name.
    var isIPAddress: Bool {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        return inet_pton(AF_INET, host, &ipv4) == 1 || inet_pton(AF_INET6, host, &ipv6) == 1
    }

    /// `host[:port]`, with brackets around an IPv6 host.
    var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(shownHost):\($0)" } ?? shownHost
    }
}
