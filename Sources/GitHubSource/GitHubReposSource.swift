public import FeedCore
public import Foundation

/// `github.repos`: the repositories of one organization or one user.
///
/// Items are titled with the repository name, summarised as
/// `Swift - 1207 forks - 6961 watchers - 252 open issues`, dated `created_at` (published) and
/// `updated_at` (updated). `pushed_at` is not used as a fallback for `updated`: it is null for
/// empty repositories, measures something else (the last push), and mixing the two would break
/// the `sort: updated` order the engine relies on.
///
/// Ordering: GitHub's default for these endpoints is not by `updated_at` (recorded org listings
/// from 2012–2017 come back oldest-created first), so the wire order is `ItemOrdering.newestFirst`
/// only when the feed asks for `sort: updated` without `direction: asc`, which orders by the same
/// `updated_at` the merged stream sorts by. `sort: created` or `pushed` order by a different date
/// than the item's `sortDate`, so they are reported as `ItemOrdering.unordered`.
public struct GitHubReposSource: FeedSource {
    /// Whose repositories the feed lists.
    public enum Owner: Sendable, Equatable {
        /// `/orgs/:org/repos`.
        case organization(String)
        /// `/users/:user/repos`.
        case user(String)
    }

    /// Accepted `type` values for an organization.
    static let organizationTypes = ["all", "public", "private", "forks", "sources", "member", "internal"]
    /// Accepted `type` values for a user.
    static let userTypes = ["all", "owner", "member"]
    /// Accepted `sort` values.
    static let sorts = ["created", "updated", "pushed", "full_name"]
    /// Accepted `direction` values.
    static let directions = ["asc", "desc"]

    /// The source type's static facts.
    public static let descriptor = GitHubAPI.descriptor(
        typeName: "github.repos",
        summary: "repositories of a GitHub organization or user",
        parameters: [
            ParameterSpec("org", .string, "organization whose repositories to list (give exactly one of org, user)"),
            ParameterSpec("user", .string, "user whose repositories to list (give exactly one of org, user)"),
            ParameterSpec(
                "type", .string,
                "org: all, public, private, forks, sources, member, internal; user: all, owner, member"),
            ParameterSpec("sort", .string, "created, updated, pushed or full_name (GitHub's default order if absent)"),
            ParameterSpec("direction", .string, "asc or desc (GitHub's default: asc for full_name, else desc)"),
        ],
        example: [
            "  - name: swift-repos",
            "    source: github.repos",
            "    org: swiftlang                 # or user: NAME",
            "    sort: updated                  # newest first: later pulls stop at stored items",
            "    per_page: 30",
        ])

    /// Whose repositories are listed.
    public let owner: Owner
    /// The `sort` query value, if any.
    public let sort: String?
    /// The `direction` query value, if any.
    public let direction: String?
    /// `/orgs/:org/repos` or `/users/:user/repos` with `type`, `sort`, `direction` when given.
    public let firstPageURL: URL
    private let token: Secret?
    private let webRoot: URL?

    /// Reads exactly one of `org`/`user`, then `type`, `sort`, `direction` and `token`.
    public init(feed: FeedContext, parameters: FeedParameters) throws {
        let org = try parameters.string("org")
        let user = try parameters.string("user")
        switch (org, user) {
        case (let org?, nil):
            guard !org.isEmpty else { throw Self.empty("org", parameters) }
            owner = .organization(org)
        case (nil, let user?):
            guard !user.isEmpty else { throw Self.empty("user", parameters) }
            owner = .user(user)
        default:
            throw ConfigError(
                "feed '\(parameters.feedName)' (\(Self.descriptor.typeName)) needs exactly one of 'org' or 'user'",
                at: parameters.node.location,
                notes: org != nil ? ["note: both 'org' and 'user' are set (here or in 'defaults:')"] : [])
        }
        let isOrganization = if case .organization = owner { true } else { false }
        let type = try parameters.choice(
            "type", in: isOrganization ? Self.organizationTypes : Self.userTypes,
            context: isOrganization ? " for an organization" : " for a user")
        sort = try parameters.choice("sort", in: Self.sorts)
        direction = try parameters.choice("direction", in: Self.directions)
        token = try parameters.secret("token")
        webRoot = GitHubAPI.webRoot(for: feed.baseURL)

        let path = switch owner {
        case .organization(let name): "/orgs/\(GitHubAPI.segment(name))/repos"
        case .user(let name): "/users/\(GitHubAPI.segment(name))/repos"
        }
        var query: [(String, String)] = []
        if let type { query.append(("type", type)) }
        if let sort { query.append(("sort", sort)) }
        if let direction { query.append(("direction", direction)) }
        firstPageURL = feed.endpoint(path, query: query)
    }

    /// Link-header pagination with `per_page`.
    public var pagination: any PaginationStrategy { GitHubAPI.pagination }
    /// `Accept` and `X-GitHub-Api-Version`.
    public var requestHeaders: HTTPHeaders { GitHubAPI.requestHeaders }
    /// `Authorization: Bearer` when a token is configured.
    public var credentialHeaders: HTTPHeaders { GitHubAPI.credentialHeaders(token) }

    /// Newest first only for `sort: updated` in descending order (see the type's documentation).
    public var ordering: ItemOrdering {
        sort == "updated" && direction != "asc" ? .newestFirst : .unordered
    }

    /// Maps a JSON array of repositories to items.
    public func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        DecodedPage(items: try items(from: try decodeRepositories(page)))
    }

    /// The page's repositories, decoded but not yet mapped (the first half of ``decodePage(_:)``).
    /// One pass over the body with ``RepositoryDTO/fields``; through `Decodable` (driven by the same
    /// table) when that reader cannot decode the page exactly as `Decodable` would.
    package func decodeRepositories(_ page: FetchedPage) throws -> [JSONPage.Element<RepositoryDTO>] {
        try JSONPage.elements(RepositoryDTO.self, in: page, reading: RepositoryDTO.init(reading:))
    }

    /// Decoded repositories as items (the second half of ``decodePage(_:)``).
    package func items(from elements: [JSONPage.Element<RepositoryDTO>]) throws -> [FeedItem] {
        try elements.map { element -> FeedItem in
            let repo = element.value
            let path = "$[\(element.index)]"
            return FeedItem(
                id: "\(Self.descriptor.typeName):\(repo.id)",
                title: repo.name,
                summary: repo.summary,
                url: ItemText.nonEmpty(repo.htmlURL),
                author: repo.owner?.author(webRoot: webRoot),
                imageURL: ItemText.nonEmpty(repo.owner?.avatarURL),
                published: try ISO8601.timestamp(repo.createdAt, at: "\(path).created_at"),
                updated: try ISO8601.timestamp(repo.updatedAt, at: "\(path).updated_at"),
                raw: element.raw)
        }
    }

    private static func empty(_ key: String, _ parameters: FeedParameters) -> ConfigError {
        ConfigError("'\(key)' must not be empty", at: parameters.value(key)?.location ?? parameters.node.location)
    }
}

/// The fields of a repository that `github.repos` reads. Counts have 2012 fallbacks
/// (`forks`, `watchers`, `open_issues` predate the `_count` names).
package struct RepositoryDTO: JSONObjectReadable, Equatable {
    package var id: Int
    package var name: String
    package var htmlURL: String?
    package var language: String?
    package var forksCount: Int?
    package var forks: Int?
    package var watchersCount: Int?
    package var watchers: Int?
    package var openIssuesCount: Int?
    package var openIssues: Int?
    package var owner: GitHubUserDTO?
    package var createdAt: String?
    package var updatedAt: String?

    /// The members read, in declaration order.
    package static let fields = JSONFields<RepositoryDTO>(RepositoryDTO(id: 0, name: ""), [
        .field("id", \.id),
        .field("name", \.name),
        .field("html_url", \.htmlURL),
        .field("language", \.language),
        .field("forks_count", \.forksCount),
        .field("forks", \.forks),
        .field("watchers_count", \.watchersCount),
        .field("watchers", \.watchers),
        .field("open_issues_count", \.openIssuesCount),
        .field("open_issues", \.openIssues),
        .field("owner", \.owner),
        .field("created_at", \.createdAt),
        .field("updated_at", \.updatedAt),
    ])

    /// `Swift - 1207 forks - 6961 watchers - 252 open issues` (`No language` when null).
    var summary: String {
        let language = ItemText.nonEmpty(language) ?? "No language"
        let forks = forksCount ?? forks ?? 0
        let watchers = watchersCount ?? watchers ?? 0
        let issues = openIssuesCount ?? openIssues ?? 0
        return "\(language) - \(forks) forks - \(watchers) watchers - \(issues) open issues"
    }
}
