import Hummingbird
import HTTPTypes

/// Lets a state-changing request (anything but GET and HEAD: `POST /api/refresh`) through only
/// when it cannot have been sent by another web site (cross-site request forgery).
///
/// With a bearer token configured, ``BearerAuthMiddleware`` has already checked it: a browser
/// never adds that header on its own, so the token is the proof. Without one, the request needs:
/// - **same origin**: an `Origin` equal to the server's own origin (`http://` + its `Host`, or a
///   `--public-url`), or no `Origin` with `Sec-Fetch-Site: same-origin` or `none`, or neither
///   header (a program such as curl: a browser always sends `Origin` with a cross-site request
///   that is not simple); a `Sec-Fetch-Site` of `cross-site` or `same-site` is refused whatever
///   else the request says;
/// - **not simple**: a `Content-Type: application/json` or an `X-Feedagg-Client` header, which a
///   plain cross-site form or `fetch(…, {mode: 'no-cors'})` cannot send, and which make a
///   browser ask the server first (CORS preflight, never granted here).
///
/// Refusals answer `403` with what was missing.
struct SameOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let hosts: ServedHosts
    /// Whether a bearer token guards every request.
    let tokenRequired: Bool

    /// The custom header that marks a request as sent by a script of this server or by a program.
    static var clientHeader: HTTPField.Name { HTTPField.Name("X-Feedagg-Client")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if request.method == .get || request.method == .head || tokenRequired {
            return try await next(request, context)
        }
        if let refusal = refusal(request) {
            ServerMetrics.recordRefused(.crossSite)
            return RequestProblem(.forbidden, refusal).response
        }
        return try await next(request, context)
    }

    /// Why `request` may have come from another site, or `nil` when it cannot have.
    func refusal(_ request: Request) -> String? {
        let fetchSite = request.headers[HTTPField.Name("Sec-Fetch-Site")!]?.lowercased()
        if let fetchSite, fetchSite != "same-origin" && fetchSite != "none" {
            return "cross-site requests cannot change this server's state (Sec-Fetch-Site: \(fetchSite))"
        }
        if let origin = request.headers[.origin] {
            guard ownOrigins(request).contains(origin.lowercased()) else {
                return "requests from another origin cannot change this server's state"
            }
        }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        let json = contentType.hasPrefix("application/json")
        guard json || request.headers[Self.clientHeader] != nil else {
            return "send Content-Type: application/json or an X-Feedagg-Client header with a request that changes state"
        }
        return nil
    }

    /// The origins a same-origin request may name: `http://` + the request's own `Host`, and every
    /// `--public-url`.
    func ownOrigins(_ request: Request) -> Set<String> {
        Self.ownOrigins(host: request.head.authority, hosts: hosts)
    }

    /// The origins a same-origin request reaching the server as `host` (its `Host` header) may name.
    static func ownOrigins(host: String?, hosts: ServedHosts) -> Set<String> {
        var origins = Set(hosts.publicURLs.map(\.origin))
        if let host, let authority = Authority(host) {
            origins.insert("http://" + authority.description)
            // An origin leaves out the scheme's default port; a Host may give it or not.
            var bare = authority
            bare.port = nil
            if authority.port == 80 || authority.port == nil {
                origins.insert("http://" + bare.description)
                origins.insert("http://" + bare.description + ":80")
            }
        }
        return origins
    }
}
