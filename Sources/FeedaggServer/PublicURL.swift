import Hummingbird

/// The absolute URLs the server writes into Link headers and feed documents: under the
/// `--public-url` the request came through (its `Host` names it), else `http://` + the request's
/// `Host` (checked by ``HostCheckMiddleware`` before any route runs), else the listening address.
struct PublicURL: Sendable {
    /// `scheme://host[:port]`, no trailing slash.
    let origin: String

    /// The origin `request` reached the server at.
    init(_ request: Request, hosts: ServedHosts) {
        if let header = request.head.authority, let publicOrigin = hosts.publicOrigin(host: header) {
            origin = publicOrigin.origin
        } else if let header = request.head.authority, let authority = Authority(header) {
            origin = "http://" + authority.description
        } else {
            origin = "http://" + ListenAddress.authority(host: hosts.listen.host, port: hosts.port)
        }
    }

    /// `origin + path`, with `?query` when the query is not empty.
    func url(_ path: String, query: String = "") -> String {
        origin + path + (query.isEmpty ? "" : "?" + query)
    }
}
