public import FeedCore
public import Foundation

/// `github.gists`: public gists, everyone's (`/gists/public`) or one user's (`/users/:user/gists`).
///
/// Items are titled with the description (on one line), else the first file name, else the gist id, and
/// summarised as `2 files: a.py (Python), b.md (Markdown)`. Files are listed by name: a JSON
/// object's key order does not survive decoding, and sorting keeps the output deterministic.
/// The author is `owner`, else the 2012-era `user`, else none (anonymous gists).
///
/// Ordering: recorded responses (2012, 2014, 2017, 2018) come newest-*created* first, while
/// `updated_at` — the item's `sortDate` — is not monotonic on the wire (an old gist edited
/// recently stays at its creation position). So the wire order is `ItemOrdering.unordered`.
public struct GitHubGistsSource: FeedSource {
    /// The source type's static facts.
    public static let descriptor = GitHubAPI.descriptor(
        typeName: "github.gists",
        summary: "public gists, of everyone or of one GitHub user",
        parameters: [
            ParameterSpec("user", .string, "list this user's gists (default: everyone's public gists)"),
            ParameterSpec("since", .date, "only gists updated at or after this time (sent as 'since')"),
        ],
        example: [
            "  - name: my-gists",
            "    source: github.gists",
            "    user: octocat                  # leave out for everyone's public gists",
            "    max_pages: 2",
        ])

    /// Whose gists are listed: `nil` for everyone's public gists.
    public let user: String?
    /// The `since` filter, if any.
    public let since: Date?
    /// `/gists/public` or `/users/:user/gists`, with `since` when given.
    public let firstPageURL: URL
    private let token: Secret?
    private let webRoot: URL?
    private let feed: FeedContext
    private let path: String

    /// Reads `user`, `since` and `token`.
    public init(feed: FeedContext, parameters: FeedParameters) throws {
        user = try parameters.string("user")
        if user?.isEmpty == true {
            throw ConfigError("'user' must not be empty", at: parameters.value("user")?.location ?? parameters.node.location)
        }
        since = try parameters.date("since")
        token = try parameters.secret("token")
        webRoot = GitHubAPI.webRoot(for: feed.baseURL)
        let path = user.map { "/users/\(GitHubAPI.segment($0))/gists" } ?? "/gists/public"
        self.feed = feed
        self.path = path
        firstPageURL = feed.endpoint(path, query: since.map { [("since", ISO8601.string(from: $0))] } ?? [])
    }

    /// The listing with `since` = the later of `date` and the configured `since`.
    public func firstPageURL(updatedSince date: Date) -> URL? {
        let watermark = since.map { max($0, date) } ?? date
        return feed.endpoint(path, query: [("since", ISO8601.string(from: watermark))])
    }

    /// Link-header pagination with `per_page`.
    public var pagination: any PaginationStrategy { GitHubAPI.pagination }
    /// `Accept` and `X-GitHub-Api-Version`.
    public var requestHeaders: HTTPHeaders { GitHubAPI.requestHeaders }
    /// `Authorization: Bearer` when a token is configured.
    public var credentialHeaders: HTTPHeaders { GitHubAPI.credentialHeaders(token) }
    /// Newest-created first is not newest-updated first: unordered (see the type's documentation).
    public var ordering: ItemOrdering { .unordered }

    /// Maps a JSON array of gists to items.
    public func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        DecodedPage(items: try items(from: try decodeGists(page)))
    }

    /// The page's gists, decoded but not yet mapped (the first half of ``decodePage(_:)``).
    /// One pass over the body with ``GistDTO/fields``; through `Decodable` (driven by the same
    /// table) when that reader cannot decode the page exactly as `Decodable` would.
    package func decodeGists(_ page: FetchedPage) throws -> [JSONPage.Element<GistDTO>] {
        try JSONPage.elements(GistDTO.self, in: page, reading: GistDTO.init(reading:))
    }

    /// Decoded gists as items (the second half of ``decodePage(_:)``).
    package func items(from elements: [JSONPage.Element<GistDTO>]) throws -> [FeedItem] {
        try elements.map { element -> FeedItem in
            let gist = element.value
            let path = "$[\(element.index)]"
            let files = gist.sortedFiles
            let author = gist.owner ?? gist.user
            return FeedItem(
                id: "\(Self.descriptor.typeName):\(gist.id)",
                title: ItemText.oneLine(gist.description) ?? files.first?.name ?? gist.id,
                summary: Self.summary(files),
                url: ItemText.nonEmpty(gist.htmlURL),
                author: author?.author(webRoot: webRoot),
                imageURL: ItemText.nonEmpty(author?.avatarURL),
                published: try ISO8601.timestamp(gist.createdAt, at: "\(path).created_at"),
                updated: try ISO8601.timestamp(gist.updatedAt, at: "\(path).updated_at"),
                raw: element.raw)
        }
    }

    /// At most this many file names in a summary.
    static let summaryFileLimit = 10

    /// `1 file: a.py (Python)`, `3 files: a, b (Shell), c`, `… and 2 more`; `nil` without files.
    static func summary(_ files: [GistDTO.File]) -> String? {
        guard !files.isEmpty else { return nil }
        let shown = files.prefix(summaryFileLimit).map { file in
            file.language.map { "\(file.name) (\($0))" } ?? file.name
        }
        var text = "\(files.count) \(files.count == 1 ? "file" : "files"): " + shown.joined(separator: ", ")
        if files.count > summaryFileLimit { text += " and \(files.count - summaryFileLimit) more" }
        return text
    }
}

/// The fields of a gist that `github.gists` reads. `owner` is absent before 2014; `user` is the
/// 2012 name for it and is null afterwards.
package struct GistDTO: JSONObjectReadable, Equatable {
    package var id: String
    package var description: String?
    package var htmlURL: String?
    package var files: [String: FileDTO]?
    package var owner: GitHubUserDTO?
    package var user: GitHubUserDTO?
    package var createdAt: String?
    package var updatedAt: String?

    /// The members read, in declaration order.
    package static let fields = JSONFields<GistDTO>(GistDTO(id: ""), [
        .field("id", \.id),
        .field("description", \.description),
        .field("html_url", \.htmlURL),
        .field("files", \.files),
        .field("owner", \.owner),
        .field("user", \.user),
        .field("created_at", \.createdAt),
        .field("updated_at", \.updatedAt),
    ])

    /// One entry of `files` (a repeated file name leaves the page to `Decodable`).
    package struct FileDTO: JSONObjectReadable, Equatable {
        package var filename: String?
        package var language: String?

        /// The members read, in declaration order.
        package static let fields = JSONFields<FileDTO>(FileDTO(), [
            .field("filename", \.filename),
            .field("language", \.language),
        ])
    }

    /// A file as shown in a summary.
    struct File: Sendable, Equatable {
        var name: String
        var language: String?
    }

    /// The files ordered by name (case-insensitively, then exactly, for a stable order).
    var sortedFiles: [File] {
        (files ?? [:]).map { key, file in
            File(name: ItemText.nonEmpty(file.filename) ?? key, language: ItemText.nonEmpty(file.language))
        }
        .sorted { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) }
    }
}
