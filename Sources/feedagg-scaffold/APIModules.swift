/// An API a generated source talks to: either an existing API module's helper (`--api github`:
/// GitHubSource's `GitHubAPI`), or the made-up API of a plain `new-source` (``APIModule/madeUp(name:)``).
///
/// To let `--api` build on another module, add an entry to ``registered``: the module to depend
/// on, and the Swift snippets that use its helper (each is pasted into the generated source).
struct APIModule: Sendable {
    /// One parameter the endpoint needs (required, a string), with an example value.
    struct Parameter: Sendable {
        var name: String
        var summary: String
        var example: String
    }

    /// `--api` value (`github`); `nil` for the made-up API.
    var key: String?
    /// The module the source and its tests depend on (`GitHubSource`), if any.
    var module: String?
    /// The API root (fixture URLs are under it).
    var host: String
    /// The endpoint's parameters, in order; the item id is scoped by their values.
    var parameters: [Parameter]
    /// The endpoint path as a Swift string literal body, `\(name)` referring to the parameters.
    var path: @Sendable (_ slug: String) -> String
    /// `SourceDescriptor(` arguments after `parameters:` and before `example:` (made-up API), or a
    /// helper call that takes `typeName:summary:parameters:example:`.
    var descriptorCall: String
    /// Extra descriptor arguments between `parameters:` and `example:` (page sizes, base URL…).
    var descriptorExtra: String
    /// Extra parameter specs the source declares itself (the made-up API's `token`).
    var ownParameters: [String]
    /// `var pagination` body.
    var pagination: String
    /// What `pagination` does, one doc line.
    var paginationDoc: String
    /// `var requestHeaders` body.
    var requestHeaders: String
    /// The request headers the fixture records, as `[name, value]` JSON pairs.
    var recordedRequestHeaders: [(String, String)]
    /// `var credentialHeaders` body (`token` is the `Secret?`).
    var credentialHeaders: String
    /// How to percent-encode one path segment (`GitHubAPI.segment`).
    var segment: String
    /// The API's default `per_page`.
    var defaultPageSize: Int

    /// The modules `--api` accepts, by key.
    static let registered: [String: APIModule] = ["github": github]

    /// GitHub's REST API through GitHubSource's `GitHubAPI`: its descriptor helper (root, page
    /// sizes, `token` and credential), headers, Link-header pagination with `page` (so a
    /// remembered page count fans out), and `/repos/{owner}/{repo}/<slug>`.
    static let github = APIModule(
        key: "github", module: "GitHubSource", host: "api.github.com",
        parameters: [
            Parameter(name: "owner", summary: "user or organization owning the repository", example: "apple"),
            Parameter(name: "repo", summary: "repository name", example: "swift"),
        ],
        path: { slug in #"/repos/\(GitHubAPI.segment(owner))/\(GitHubAPI.segment(repo))/\#(slug)"# },
        descriptorCall: "GitHubAPI.descriptor", descriptorExtra: "", ownParameters: [],
        pagination: "GitHubAPI.pagination",
        paginationDoc: #"GitHub's Link headers (`rel="next"`, `rel="last"`), `per_page`, and `page` for early fan-out."#,
        requestHeaders: "GitHubAPI.requestHeaders",
        recordedRequestHeaders: [("Accept", "application/vnd.github+json"), ("X-GitHub-Api-Version", "2022-11-28")],
        credentialHeaders: "GitHubAPI.credentialHeaders(token)", segment: "GitHubAPI.segment", defaultPageSize: 30)

    /// The made-up API of a plain `new-source --name Widget`: `api.widget.example`, a
    /// `collection` parameter and a bearer token of its own.
    static func madeUp(name: String, pagination: PaginationChoice) -> APIModule {
        let isLink = pagination == .link
        let host = "api.\(name.lowercased()).example"
        let summary =
            isLink ? ##"#"Link header (rel="next", rel="last"), per_page"#"## : ##""page numbers (page, per_page; page and total_pages in the body)""##
        return APIModule(
            key: nil, module: nil, host: host,
            parameters: [Parameter(name: "collection", summary: "the collection whose items to list", example: "example")],
            path: { _ in #"/collections/\(QueryEncoding.encode(collection))/items"# },
            descriptorCall: "SourceDescriptor",
            descriptorExtra: """
                        pagination: \(summary),
                        defaultBaseURL: "https://\(host)",
                        defaultPageSize: 30,
                        maxPageSize: 100,

                """,
            ownParameters: [
                #"ParameterSpec("token", .secret, "\#(name) API token (e.g. ${\#(name.uppercased())_TOKEN}), sent as 'Authorization: Bearer'")"#
            ],
            pagination: isLink
                ? #"LinkHeaderPagination(pageSizeParameter: "per_page")"#
                : #"PageNumberPagination(pageParameter: "page", pageSizeParameter: "per_page")"#,
            paginationDoc: isLink
                ? #"Link-header pagination: follows `rel="next"`; with `rel="last"` the pages are fetched concurrently."#
                : "Page numbers: `?page=N&per_page=M`; the body's `total_pages` lets the engine fetch the rest concurrently.",
            requestHeaders: #"["Accept": "application/json"]"#, recordedRequestHeaders: [("Accept", "application/json")],
            credentialHeaders: #"guard let token else { return [:] }; return ["Authorization": "Bearer \(token.value)"]"#,
            segment: "QueryEncoding.encode", defaultPageSize: 30)
    }
}
