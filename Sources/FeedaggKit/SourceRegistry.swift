public import FeedCore
public import Foundation
import GitHubSource
import HTTPSource
import PhotosSource
import GitHubStargazersSource
import WebFeedSource
import ExecSource
// new-source inserts imports above this line (keep it)

/// The source types a run knows, passed to the loader and the engine (never a global).
public struct SourceRegistry: Sendable {
    /// The registered types, in registration order.
    public let types: [any FeedSource.Type]

    /// Creates a registry of `types`.
    public init(_ types: [any FeedSource.Type]) {
        self.types = types
    }

    /// The built-in sources: GitHub repositories, members and gists, 500px photos, `http`
    /// (any JSON API declared in feeds.yaml), `feed` (RSS, Atom, JSON Feed), `exec` (plugin executables), and the modules added with `swift package new-source`.
    public static let builtIn = SourceRegistry([
        GitHubReposSource.self, GitHubMembersSource.self, GitHubGistsSource.self, FiveHundredPxSource.self,
        HTTPSource.self,
        GitHubStargazersSource.self,
        WebFeedSource.self, ExecSource.self,
        // new-source inserts source types above this line (keep it)
    ])

    /// Every type's descriptor.
    public var descriptors: [SourceDescriptor] { types.map { $0.descriptor } }

    /// The type registered as `name`.
    public func type(named name: String) -> (any FeedSource.Type)? {
        types.first { $0.descriptor.typeName == name }
    }

    /// Builds a feed from its parameters; `baseURLOverride` replaces the origin (replay mode),
    /// keeping the path of the configured base URL.
    public func makeFeed(
        name: String, sourceType: String, parameters: FeedParameters, baseURLOverride: URL? = nil
    ) throws -> Feed {
        guard let type = type(named: sourceType) else {
            throw ConfigError(
                "unknown source type '\(sourceType)'", at: parameters.node.location,
                notes: ["known source types: \(descriptors.map(\.typeName).sorted().joined(separator: ", "))"])
        }
        let descriptor = type.descriptor
        var baseURL = try parameters.url("base_url") ?? URL(string: descriptor.defaultBaseURL)
        if let configured = baseURL, configured.scheme?.lowercased() == "http", !Self.isLoopback(configured),
            try parameters.boolean("allow_insecure_http") != true
        {
            throw ConfigError(
                "'base_url' is plain http:// to \(configured.host ?? "a remote host"): tokens and data would travel "
                    + "unencrypted",
                at: parameters.value("base_url")?.location ?? parameters.node.location,
                notes: ["use https://, or set 'allow_insecure_http: true' on the feed if you really mean it"])
        }
        if let override = baseURLOverride, let configured = baseURL {
            baseURL = Self.rebase(configured, onto: override)
        }
        guard let baseURL else {
            throw ConfigError("source '\(sourceType)' has no usable default base URL", at: parameters.node.location)
        }
        let pageSize =
            try parameters.integer("per_page", in: 1...descriptor.maxPageSize) ?? descriptor.defaultPageSize
        let maxPages = try parameters.integer("max_pages", in: 1...1_000_000)
        let context = FeedContext(name: name, baseURL: baseURL, pageSize: pageSize, maxPages: maxPages)
        return Feed(source: try type.init(feed: context, parameters: parameters), context: context)
    }

    /// Whether `url`'s host is this machine (`localhost`, 127.0.0.0/8, `::1`).
    static func isLoopback(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// `url` with the scheme, host and port of `origin`, and `origin`'s path prepended.
    static func rebase(_ url: URL, onto origin: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let target = URLComponents(url: origin, resolvingAgainstBaseURL: false)
        else { return origin }
        components.scheme = target.scheme
        components.host = target.host
        components.port = target.port
        var prefix = target.percentEncodedPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        components.percentEncodedPath = prefix + components.percentEncodedPath
        return components.url ?? origin
    }
}
