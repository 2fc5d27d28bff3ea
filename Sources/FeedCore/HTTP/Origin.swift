package import Foundation

/// Scheme, host and port of a URL, for same-origin checks.
package struct Origin: Hashable, Sendable {
    let scheme: String
    let host: String
    let port: Int

    /// The origin of `url`.
    package init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }
}
