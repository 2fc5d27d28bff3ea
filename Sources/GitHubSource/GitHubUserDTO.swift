package import FeedCore
import Foundation

/// A GitHub user or organization as embedded in list responses (`owner`, members, gist `user`).
///
/// Only `login` is required: 2012 payloads lack `html_url`, `type` and `site_admin`.
package struct GitHubUserDTO: JSONObjectReadable, Equatable {
    package var login: String
    package var id: Int?
    package var htmlURL: String?
    package var avatarURL: String?
    package var type: String?
    package var siteAdmin: Bool?

    /// The members read, in declaration order.
    package static let fields = JSONFields<GitHubUserDTO>(GitHubUserDTO(login: ""), [
        .field("login", \.login),
        .field("id", \.id),
        .field("html_url", \.htmlURL),
        .field("avatar_url", \.avatarURL),
        .field("type", \.type),
        .field("site_admin", \.siteAdmin),
    ])

    /// The profile page: `html_url`, else derived from the API root for old payloads.
    func profileURL(webRoot: URL?) -> String? {
        if let htmlURL = ItemText.nonEmpty(htmlURL) { return htmlURL }
        return webRoot?.appendingPathComponent(login).absoluteString
    }

    /// The user as a feed author.
    func author(webRoot: URL?) -> FeedAuthor {
        FeedAuthor(name: login, url: profileURL(webRoot: webRoot), avatarURL: ItemText.nonEmpty(avatarURL))
    }
}
