import FeedCore
import Foundation

/// What every GitHub source type shares: API root, page sizes, headers, the token, timestamps.
enum GitHubAPI {
    /// The public API root.
    static let defaultBaseURL = "https://api.github.com"
    /// GitHub's own default `per_page`.
    static let defaultPageSize = 30
    /// The largest `per_page` GitHub accepts.
    static let maxPageSize = 100
    /// GitHub list endpoints page with RFC 8288 Link headers.
    /// GitHub addresses page N as `?page=N` on the request URL too, so a remembered page count
    /// lets the engine ask for the first pages at once.
    static let pagination = LinkHeaderPagination(pageSizeParameter: "per_page", pageParameter: "page")
    /// ``pagination`` in words, for `feedagg sources`.
    static let paginationSummary = #"Link header (rel="next", rel="last"), per_page"#

    /// The `token` parameter every GitHub source accepts.
    static let tokenParameter = ParameterSpec(
        "token", .secret, "GitHub token (e.g. ${GITHUB_TOKEN}), sent as 'Authorization: Bearer'")

    /// Headers sent with every GitHub request.
    static let requestHeaders: HTTPHeaders = [
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
    ]

    /// `Authorization: Bearer <token>` when a token is configured, else nothing.
    static func credentialHeaders(_ token: Secret?) -> HTTPHeaders {
        guard let token else { return [:] }
        return ["Authorization": "Bearer \(token.value)"]
    }

    /// A user, organization or gist name as one percent-encoded path segment.
    static func segment(_ name: String) -> String {
        QueryEncoding.encode(name)
    }

    /// The web root matching an API root, used only when an old payload lacks `html_url`:
    /// `api.github.com` → `https://github.com`, `https://host/api/v3` → `https://host`.
    static func webRoot(for baseURL: URL) -> URL? {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else { return nil }
        if components.host?.lowercased() == "api.github.com" {
            return URL(string: "https://github.com")
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        guard path.hasSuffix("/api/v3") else { return nil }
        components.percentEncodedPath = String(path.dropLast("/api/v3".count))
        components.percentEncodedQuery = nil
        return components.url
    }

    /// Parses an optional ISO 8601 timestamp; a present but malformed one is a decode error at `path`.
    static func timestamp(_ text: String?, at path: String) throws -> Date? {
        guard let text, !text.isEmpty else { return nil }
        guard let date = ISO8601.date(from: text) else {
            throw PageDecodeError(path: path, "expected an ISO 8601 timestamp, found '\(text.prefix(40))'")
        }
        return date
    }

    /// `text` on one line (whitespace runs collapsed to a space), or `nil` when nothing is left.
    static func oneLine(_ text: String?) -> String? {
        nonEmpty(text).map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
    }

    /// `text` with surrounding whitespace removed, or `nil` when nothing is left.
    static func nonEmpty(_ text: String?) -> String? {
        guard let text else { return nil }
        // The usual case, without Foundation's trimming (most of the mapping time): a first and a
        // last byte that are printable ASCII are scalars that are neither whitespace nor newlines,
        // so there is nothing to trim.
        let utf8 = text.utf8
        if let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return text
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}

/// A GitHub user or organization as embedded in list responses (`owner`, members, gist `user`).
///
/// Only `login` is required: 2012 payloads lack `html_url`, `type` and `site_admin`.
package struct GitHubUserDTO: Decodable, Sendable, Equatable {
    package var login: String
    package var id: Int?
    package var htmlURL: String?
    package var avatarURL: String?
    package var type: String?
    package var siteAdmin: Bool?

    enum CodingKeys: String, CodingKey {
        case login, id, type
        case htmlURL = "html_url"
        case avatarURL = "avatar_url"
        case siteAdmin = "site_admin"
    }

    /// The profile page: `html_url`, else derived from the API root for old payloads.
    func profileURL(webRoot: URL?) -> String? {
        if let htmlURL = GitHubAPI.nonEmpty(htmlURL) { return htmlURL }
        return webRoot?.appendingPathComponent(login).absoluteString
    }

    /// The user as a feed author.
    func author(webRoot: URL?) -> FeedAuthor {
        FeedAuthor(name: login, url: profileURL(webRoot: webRoot), avatarURL: GitHubAPI.nonEmpty(avatarURL))
    }
}
