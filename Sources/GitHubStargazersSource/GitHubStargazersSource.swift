public import FeedCore
public import Foundation
import GitHubSource

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
/// module"). Besides FeedCore it depends on GitHubSource, for ``GitHubAPI``: GitHub's root, page
/// sizes, token and headers are declared once (see "Depending on another source module" there).
public struct GitHubStargazersSource: FeedSource {
    /// The source type's static facts.
    public static let descriptor = GitHubAPI.descriptor(
        typeName: "github.stargazers",
        summary: "who starred a GitHub repository, and when",
        parameters: [
            ParameterSpec("owner", .string, required: true, "user or organization owning the repository"),
            ParameterSpec("repo", .string, required: true, "repository name"),
        ],
        example: [
            "  - name: argument-parser-stars",
            "    source: github.stargazers",
            "    owner: apple",
            "    repo: swift-argument-parser",
            "    max_pages: 3",
        ])

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
        firstPageURL = feed.endpoint("/repos/\(GitHubAPI.segment(owner))/\(GitHubAPI.segment(repository))/stargazers")
    }

    /// Link-header pagination with `per_page`; `rel="last"` lets the engine fetch pages concurrently.
    public var pagination: any PaginationStrategy { LinkHeaderPagination(pageSizeParameter: "per_page") }
    /// The star media type (adds `starred_at`) and the API version.
    public var requestHeaders: HTTPHeaders { GitHubAPI.requestHeaders(accepting: "application/vnd.github.star+json") }
    /// `Authorization: Bearer` when a token is configured; sent to the feed's own origin only.
    public var credentialHeaders: HTTPHeaders { GitHubAPI.credentialHeaders(token) }
    /// Oldest star first: no newest-first order to stop early on.
    public var ordering: ItemOrdering { .unordered }

    /// Maps a JSON array of stars to items; a malformed star throws ``PageDecodeError`` with its path.
    public func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        let elements = try JSONPage.elements(StarDTO.self, in: page, reading: StarDTO.init(reading:))
        let items = try elements.map { element in
            try item(element.value, raw: element.raw, path: "$[\(element.index)]")
        }
        return DecodedPage(items: items)
    }

    /// One star as an item.
    func item(_ star: StarDTO, raw: Data, path: String) throws -> FeedItem {
        let user = star.user
        let identity = user.id.map(String.init) ?? user.login
        let profile = ItemText.nonEmpty(user.htmlURL)
        let avatar = ItemText.nonEmpty(user.avatarURL)
        return FeedItem(
            id: "\(Self.descriptor.typeName):\(owner)/\(repository):\(identity)",
            title: user.login,
            summary: "starred \(owner)/\(repository)",
            author: FeedAuthor(name: user.login, url: profile, avatarURL: avatar),
            imageURL: avatar,
            published: try ISO8601.timestamp(star.starredAt, at: "\(path).starred_at"),
            raw: raw)
    }
}

/// One element of a stargazers page in the star media type.
struct StarDTO: JSONObjectReadable {
    var starredAt: String?
    var user: UserDTO

    /// The members read, in declaration order.
    static let fields = JSONFields<StarDTO>(StarDTO(user: UserDTO(login: "")), [
        .field("starred_at", \.starredAt),
        .field("user", \.user),
    ])

    /// The fields of the starring user that `github.stargazers` reads.
    struct UserDTO: JSONObjectReadable {
        var login: String
        var id: Int?
        var htmlURL: String?
        var avatarURL: String?

        /// The members read, in declaration order.
        static let fields = JSONFields<UserDTO>(UserDTO(login: ""), [
            .field("login", \.login),
            .field("id", \.id),
            .field("html_url", \.htmlURL),
            .field("avatar_url", \.avatarURL),
        ])
    }
}
