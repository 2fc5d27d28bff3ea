public import FeedCore
public import Foundation

/// What every GitHub source type shares: the API root, page sizes, Link-header paging, headers and
/// the token. Public so that a source module for another GitHub endpoint (`github.stargazers`)
/// depends on this module instead of re-declaring them (see "Depending on another source module"
/// in the FeedCore article "Writing a source module").
public enum GitHubAPI {
    /// The public API root.
    public static let defaultBaseURL = "https://api.github.com"
    /// GitHub's own default `per_page`.
    public static let defaultPageSize = 30
    /// The largest `per_page` GitHub accepts.
    public static let maxPageSize = 100
    /// GitHub list endpoints page with RFC 8288 Link headers.
    /// GitHub addresses page N as `?page=N` on the request URL too, so a remembered page count
    /// lets the engine ask for the first pages at once.
    public static let pagination = LinkHeaderPagination(pageSizeParameter: "per_page", pageParameter: "page")
    /// ``pagination`` in words, for `feedagg sources`.
    public static let paginationSummary = #"Link header (rel="next", rel="last"), per_page"#

    /// The `token` parameter every GitHub source accepts.
    public static let tokenParameter = ParameterSpec(
        "token", .secret, "GitHub token (e.g. ${GITHUB_TOKEN}), sent as 'Authorization: Bearer'")

    /// GitHub's JSON media type, the `Accept` of ``requestHeaders``.
    public static let mediaType = "application/vnd.github+json"

    /// Headers sent with every GitHub request: `Accept` (``mediaType``) and the API version.
    public static let requestHeaders = requestHeaders(accepting: mediaType)

    /// The API version header with `Accept: mediaType` (e.g. `application/vnd.github.star+json`,
    /// which adds `starred_at` to stargazers).
    public static func requestHeaders(accepting mediaType: String) -> HTTPHeaders {
        ["Accept": mediaType, "X-GitHub-Api-Version": "2022-11-28"]
    }

    /// A GitHub source type's static facts: GitHub's root, page sizes, paging summary and
    /// credential, with ``tokenParameter`` after the type's own `parameters`, and the `example`
    /// `feedagg init` writes (`SourceDescriptor.example`).
    public static func descriptor(
        typeName: String, summary: String, parameters: [ParameterSpec], pagination: String = paginationSummary,
        example: [String]? = nil
    ) -> SourceDescriptor {
        SourceDescriptor(
            typeName: typeName, summary: summary, parameters: parameters + [tokenParameter], pagination: pagination,
            defaultBaseURL: defaultBaseURL, defaultPageSize: defaultPageSize, maxPageSize: maxPageSize,
            credential: .gitHub, example: example)
    }

    /// `Authorization: Bearer <token>` when a token is configured, else nothing.
    public static func credentialHeaders(_ token: Secret?) -> HTTPHeaders {
        guard let token else { return [:] }
        return ["Authorization": "Bearer \(token.value)"]
    }

    /// A user, organization or gist name as one percent-encoded path segment.
    public static func segment(_ name: String) -> String {
        QueryEncoding.encode(name)
    }

    /// The web root matching an API root, used only when an old payload lacks `html_url`:
    /// `api.github.com` → `https://github.com`, `https://host/api/v3` → `https://host`.
    public static func webRoot(for baseURL: URL) -> URL? {
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
}
