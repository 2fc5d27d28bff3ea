public import FeedCore
public import Foundation

/// `github.stargazers`: who starred a GitHub repository, and when.
///
/// `GET /repos/{owner}/{repo}/stargazers` with `Accept: application/vnd.github.star+json`, which
/// makes each element `{"starred_at": "…", "user": {login, id, avatar_url, html_url, …}}` instead
/// of a bare user. Each star is one item: titled with the login, summarised `starred owner/repo`,
/// published at `starred_at`, its author the user. An item has no `url`: the merged stream
/// de-duplicates by URL, and the same user starring two repositories is two events, so the
/// profile link is the author's URL instead. GitHub lists stargazers oldest star first, so the
/// wire order is ``ItemOrdering/unordered`` (not newest first).
///
/// Built with `swift package new-source --name GitHubStargazers --pagination link --type-name
/// github.stargazers`, then edited (the walk-through of the FeedCore article "Writing a source
/// module"). It depends on FeedCore only, like every source module.
public struct GitHubStargazersSource: FeedSource {
    /// The source type's static facts.
    public static let descriptor = SourceDescriptor(
        typeName: "github.stargazers",
        summary: "who starred a GitHub repository, and when",
        parameters: [
            ParameterSpec("owner", .string, required: true, "user or organization owning the repository"),
            ParameterSpec("repo", .string, required: true, "repository name"),
            ParameterSpec("token", .secret, "GitHub token (e.g. ${GITHUB_TOKEN}), sent as 'Authorization: Bearer'"),
        ],
        pagination: #"Link header (rel="next", rel="last"), per_page"#,
        defaultBaseURL: "https://api.github.com",
        defaultPageSize: 30,
        maxPageSize: 100)

    /// The repository's owner.
    public let owner: String
    /// The repository's name.
    public let repository: String
    /// `/repos/:owner/:repo/stargazers` under the feed's `base_url`.
    public let firstPageURL: URL
    private let token: Secret?

    /// Reads `owner` and `repo` (both required) and `token`; does no I/O.
    public init(feed: FeedContext, parameters: FeedParameters) throws {
        owner = try parameters.requiredString("owner")
        repository = try parameters.requiredString("repo")
        token = try parameters.secret("token")
        firstPageURL = feed.endpoint(
            "/repos/\(QueryEncoding.encode(owner))/\(QueryEncoding.encode(repository))/stargazers")
    }

    /// Link-header pagination with `per_page`; `rel="last"` lets the engine fetch pages concurrently.
    public var pagination: any PaginationStrategy { LinkHeaderPagination(pageSizeParameter: "per_page") }
    /// The star media type (adds `starred_at`) and the API version.
    public var requestHeaders: HTTPHeaders {
        ["Accept": "application/vnd.github.star+json", "X-GitHub-Api-Version": "2022-11-28"]
    }
    /// `Authorization: Bearer` when a token is configured; sent to the feed's own origin only.
    public var credentialHeaders: HTTPHeaders {
        guard let token else { return [:] }
        return ["Authorization": "Bearer \(token.value)"]
    }
    /// Oldest star first: no newest-first order to stop early on.
    public var ordering: ItemOrdering { .unordered }

    /// Maps a JSON array of stars to items; a malformed star throws ``PageDecodeError`` with its path.
    public func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        let elements = try JSONPage.elements(StarDTO.self, in: page)
        let items = try elements.map { element in
            try item(element.value, raw: element.raw, path: "$[\(element.index)]")
        }
        return DecodedPage(items: items)
    }

    /// One star as an item.
    func item(_ star: StarDTO, raw: Data, path: String) throws -> FeedItem {
        let user = star.user
        let identity = user.id.map(String.init) ?? user.login
        let profile = Self.nonEmpty(user.htmlURL)
        let avatar = Self.nonEmpty(user.avatarURL)
        return FeedItem(
            id: "\(Self.descriptor.typeName):\(owner)/\(repository):\(identity)",
            title: user.login,
            summary: "starred \(owner)/\(repository)",
            author: FeedAuthor(name: user.login, url: profile, avatarURL: avatar),
            imageURL: avatar,
            published: try Self.timestamp(star.starredAt, at: "\(path).starred_at"),
            raw: raw)
    }

    /// An optional ISO 8601 timestamp; a present but malformed one is a decode error at `path`.
    static func timestamp(_ text: String?, at path: String) throws -> Date? {
        guard let text, !text.isEmpty else { return nil }
        guard let date = ISO8601.date(from: text) else {
            throw PageDecodeError(path: path, "expected an ISO 8601 timestamp, found '\(text.prefix(40))'")
        }
        return date
    }

    /// `text` trimmed, or `nil` when nothing is left.
    static func nonEmpty(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}

/// One element of a stargazers page in the star media type.
struct StarDTO: Decodable, Sendable {
    var starredAt: String?
    var user: UserDTO

    enum CodingKeys: String, CodingKey {
        case user
        case starredAt = "starred_at"
    }

    /// The fields of the starring user that `github.stargazers` reads.
    struct UserDTO: Decodable, Sendable {
        var login: String
        var id: Int?
        var htmlURL: String?
        var avatarURL: String?

        enum CodingKeys: String, CodingKey {
            case login, id
            case htmlURL = "html_url"
            case avatarURL = "avatar_url"
        }
    }
}
