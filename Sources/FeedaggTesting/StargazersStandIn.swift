import Foundation
import LoopbackServer

/// A loopback stand-in for GitHub's `GET /repos/{owner}/{repo}/stargazers`, which the bench
/// server does not serve: a fixed list of stargazers, `Link` pagination (`next`, `last`, `prev`,
/// `first`, absolute URLs on the request's own origin), the star media type, a required token and
/// a session cookie (so recordings can be checked for scrubbing).
///
/// `Fixtures/swift-stargazers/` is recorded from it with `feedagg record`.
public final class StargazersStandIn: Sendable {
    /// One stargazer the stand-in lists.
    public struct Stargazer: Sendable, Equatable {
        /// GitHub login.
        public var login: String
        /// GitHub user id.
        public var id: Int
        /// `starred_at`.
        public var starredAt: String
    }

    /// The repository served: `apple/swift`.
    public static let owner = "apple"
    /// The repository served.
    public static let repository = "swift"

    /// The stargazers of `apple/swift`, oldest star first (GitHub's order).
    public static let stargazers: [Stargazer] = [
        ("octocat", 583231), ("hubot", 480938), ("monalisa", 2_918_581), ("defunkt", 2), ("mojombo", 1),
        ("pjhyett", 3), ("wycats", 4),
    ].enumerated().map { index, user in
        let day = 1 + 2 * index
        let hour = (7 + 5 * index) % 24
        return Stargazer(
            login: user.0, id: user.1,
            starredAt: String(format: "2026-11-%02dT%02d:%02d:00Z", day, hour, (13 * index) % 60))
    }

    /// The value of the session cookie the stand-in sets on every response.
    public static let sessionCookie = "stand-in-session-8c41d2e7"

    private let server: LoopbackHTTPServer

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { server.baseURL }
    /// Requests served so far.
    public var requestsServed: Int { server.stats.requestsServed }

    private init(server: LoopbackHTTPServer) {
        self.server = server
    }

    /// Starts the stand-in on an ephemeral port; with `token`, a request without
    /// `Authorization: Bearer <token>` gets `401 Bad credentials`.
    public static func start(token: String? = nil) async throws -> StargazersStandIn {
        let server = try await LoopbackHTTPServer.start { request in
            respond(to: request, token: token)
        }
        return StargazersStandIn(server: server)
    }

    /// Stops the server.
    public func shutdown() async throws {
        try await server.shutdown()
    }

    static func json(_ status: Int, _ text: String, _ headers: [(name: String, value: String)] = []) -> LoopbackResponse {
        LoopbackResponse(
            status: status,
            headers: [
                (name: "Content-Type", value: "application/json; charset=utf-8"),
                (name: "Set-Cookie", value: "_gh_sess=\(sessionCookie); Path=/; HttpOnly"),
            ] + headers,
            text: text)
    }

    static func respond(to request: LoopbackRequest, token: String?) -> LoopbackResponse {
        let path = "/repos/\(owner)/\(repository)/stargazers"
        guard request.method == "GET", request.path == path else {
            return json(404, #"{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}"#)
        }
        if let token, request.header("Authorization") != "Bearer \(token)" {
            return json(401, #"{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}"#)
        }
        var query: [String: String] = [:]
        for pair in (request.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            query[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        let perPage = min(100, max(1, query["per_page"].flatMap { Int($0) } ?? 30))
        let page = max(1, query["page"].flatMap { Int($0) } ?? 1)
        let pages = max(1, (stargazers.count + perPage - 1) / perPage)
        let slice = stargazers.dropFirst((page - 1) * perPage).prefix(perPage)
        let starMedia = request.header("Accept")?.contains("application/vnd.github.star+json") == true
        let elements = slice.map { user -> String in
            let object = """
                {"login":"\(user.login)","id":\(user.id),"avatar_url":"https://avatars.githubusercontent.com/u/\(user.id)?v=4",\
                "html_url":"https://github.com/\(user.login)","type":"User","site_admin":false}
                """
            return starMedia ? #"{"starred_at":"\#(user.starredAt)","user":\#(object)}"# : object
        }
        let origin = "http://" + (request.header("Host") ?? "127.0.0.1")
        func link(_ number: Int) -> String { "<\(origin)\(path)?per_page=\(perPage)&page=\(number)>" }
        var links: [String] = []
        if page < pages { links += ["\(link(page + 1)); rel=\"next\"", "\(link(pages)); rel=\"last\""] }
        if page > 1 { links += ["\(link(page - 1)); rel=\"prev\"", "\(link(1)); rel=\"first\""] }
        var headers: [(name: String, value: String)] = [(name: "ETag", value: "W/\"stargazers-\(perPage)-\(page)\"")]
        if !links.isEmpty { headers.append((name: "Link", value: links.joined(separator: ", "))) }
        return json(200, "[" + elements.joined(separator: ",") + "]", headers)
    }
}
