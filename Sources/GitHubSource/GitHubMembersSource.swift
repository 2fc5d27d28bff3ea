public import FeedCore
public import Foundation

/// `github.members`: the public members of a GitHub organization.
///
/// Items are titled with the login and carry no dates. GitHub lists members by login, not by
/// any date, so the wire order is `ItemOrdering.unordered`.
public struct GitHubMembersSource: FeedSource {
    /// The source type's static facts.
    public static let descriptor = GitHubAPI.descriptor(
        typeName: "github.members",
        summary: "public members of a GitHub organization",
        parameters: [
            ParameterSpec("org", .string, required: true, "organization whose public members to list"),
        ],
        example: [
            "  - name: swift-members",
            "    source: github.members",
            "    org: swiftlang",
        ])

    /// The organization whose members are listed.
    public let organization: String
    /// `/orgs/:org/public_members` under the feed's `base_url`.
    public let firstPageURL: URL
    private let token: Secret?
    private let webRoot: URL?

    /// Reads `org` (required) and `token`.
    public init(feed: FeedContext, parameters: FeedParameters) throws {
        organization = try parameters.requiredString("org")
        token = try parameters.secret("token")
        webRoot = GitHubAPI.webRoot(for: feed.baseURL)
        firstPageURL = feed.endpoint("/orgs/\(GitHubAPI.segment(organization))/public_members")
    }

    /// Link-header pagination with `per_page`.
    public var pagination: any PaginationStrategy { GitHubAPI.pagination }
    /// `Accept` and `X-GitHub-Api-Version`.
    public var requestHeaders: HTTPHeaders { GitHubAPI.requestHeaders }
    /// `Authorization: Bearer` when a token is configured.
    public var credentialHeaders: HTTPHeaders { GitHubAPI.credentialHeaders(token) }
    /// Members come by login: no date order.
    public var ordering: ItemOrdering { .unordered }

    /// Maps a JSON array of users to undated items.
    public func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        DecodedPage(items: items(from: try decodeMembers(page)))
    }

    /// The page's users, decoded but not yet mapped (the first half of ``decodePage(_:)``).
    /// One pass over the body with ``GitHubUserDTO/fields``; through `Decodable` (driven by the
    /// same table) when that reader cannot decode the page exactly as `Decodable` would.
    package func decodeMembers(_ page: FetchedPage) throws -> [JSONPage.Element<GitHubUserDTO>] {
        try JSONPage.elements(GitHubUserDTO.self, in: page, reading: GitHubUserDTO.init(reading:))
    }

    /// Decoded users as undated items (the second half of ``decodePage(_:)``).
    package func items(from elements: [JSONPage.Element<GitHubUserDTO>]) -> [FeedItem] {
        elements.map { element -> FeedItem in
            let member = element.value
            let identity = member.id.map(String.init) ?? member.login
            return FeedItem(
                id: "\(Self.descriptor.typeName):\(identity)",
                title: member.login,
                summary: summary(member),
                url: member.profileURL(webRoot: webRoot),
                author: member.author(webRoot: webRoot),
                imageURL: ItemText.nonEmpty(member.avatarURL),
                raw: element.raw)
        }
    }

    /// `Member of swift`, with ` (site admin)` or the account type when it is not a plain user.
    private func summary(_ member: GitHubUserDTO) -> String {
        var text = "Member of \(organization)"
        if let type = ItemText.nonEmpty(member.type), type != "User" { text += " (\(type))" }
        if member.siteAdmin == true { text += " (site admin)" }
        return text
    }
}
