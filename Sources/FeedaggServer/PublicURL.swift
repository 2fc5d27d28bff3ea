import Hummingbird

/// The absolute URLs the server writes into Link headers and feed documents, built from the
/// request's `Host` (what the client used to reach the server), else the listening address.
struct PublicURL: Sendable {
    /// `http://host:port`, no trailing slash.
    let origin: String

    /// The origin of `request`: its authority when it is a plain `host[:port]`, else `fallback`.
    init(_ request: Request, fallback: String) {
        let authority = request.head.authority ?? ""
        let plain = !authority.isEmpty && authority.count <= 255
            && authority.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || $0 == "." || $0 == "-" || $0 == ":" || $0 == "[" || $0 == "]"
            }
        origin = "http://" + (plain ? authority : fallback)
    }

    /// `origin + path`, with `?query` when the query is not empty.
    func url(_ path: String, query: String = "") -> String {
        origin + path + (query.isEmpty ? "" : "?" + query)
    }
}
