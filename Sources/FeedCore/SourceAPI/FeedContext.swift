public import Foundation

/// The feed-level settings common to every source type.
public struct FeedContext: Sendable {
    /// The feed's name from feeds.yaml.
    public var name: String
    /// The API root (`base_url`, or the source's default).
    public var baseURL: URL
    /// Items per page to ask for.
    public var pageSize: Int
    /// Stop after this many pages.
    public var maxPages: Int?

    /// Keys every feed accepts whatever its source type.
    public static let commonParameters: [ParameterSpec] = [
        ParameterSpec("name", .string, required: true, "unique feed name, used in output and the store"),
        ParameterSpec("source", .string, required: true, "source type (see `feedagg sources`)"),
        ParameterSpec("base_url", .url, "API root, e.g. https://ghe.example.com/api/v3"),
        ParameterSpec("per_page", .integer, "items per page to request"),
        ParameterSpec("max_pages", .integer, "stop after this many pages"),
        ParameterSpec(
            "interval", .string,
            "how often `feedagg serve` pulls the feed: 90s, 15m, 2h, 1d (at least 1m; default: settings.interval, else 15m)"),
        ParameterSpec(
            "filters", .list,
            "this feed's filter rules: [{drop: QUERY}, {keep: QUERY}, {tag: LABEL, when: QUERY}] (docs/query.md)"),
        ParameterSpec(
            "allow_insecure_http", .boolean,
            "allow a plain http:// base_url to a host other than loopback (unencrypted: off by default)"),
    ]

    /// Creates a context.
    public init(name: String, baseURL: URL, pageSize: Int, maxPages: Int? = nil) {
        self.name = name
        self.baseURL = baseURL
        self.pageSize = pageSize
        self.maxPages = maxPages
    }

    /// `base_url` joined with `path` (each segment percent-encoded as given) and a query.
    public func endpoint(_ path: String, query: [(String, String)] = []) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        var basePath = components.percentEncodedPath
        while basePath.hasSuffix("/") { basePath.removeLast() }
        components.percentEncodedPath = basePath + (path.hasPrefix("/") ? path : "/" + path)
        if !query.isEmpty {
            components.percentEncodedQuery = query.map { "\(QueryEncoding.encode($0.0))=\(QueryEncoding.encode($0.1))" }
                .joined(separator: "&")
        }
        return components.url ?? baseURL
    }
}
