public import Foundation

/// A secret value (token, key) that prints as `REDACTED` everywhere.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself. Read it only to put it on the wire.
    public let value: String
    /// Wraps a secret.
    public init(_ value: String) { self.value = value }
    public var description: String { "REDACTED" }
    public var debugDescription: String { "REDACTED" }
}

/// One parameter a source type accepts in feeds.yaml.
public struct ParameterSpec: Sendable {
    /// The value's type, checked when the configuration is loaded.
    public enum Kind: String, Sendable {
        case string, integer, boolean, url, secret, date
        /// A nested mapping (e.g. a declarative source's `pagination:` or `fields:`).
        case mapping
    }
    /// The key in feeds.yaml.
    public var name: String
    /// Its type.
    public var kind: Kind
    /// Whether a feed of this type must give it.
    public var required: Bool
    /// One line for `feedagg sources`.
    public var summary: String

    /// Creates a parameter description.
    public init(_ name: String, _ kind: Kind, required: Bool = false, _ summary: String) {
        self.name = name
        self.kind = kind
        self.required = required
        self.summary = summary
    }
}

/// What `feedagg sources` and the configuration loader know about a source type.
public struct SourceDescriptor: Sendable {
    /// The `source:` value in feeds.yaml, e.g. `github.repos`.
    public var typeName: String
    /// One line saying what the feed lists.
    public var summary: String
    /// The source's own parameters (the common ones are in ``FeedContext/commonParameters``).
    public var parameters: [ParameterSpec]
    /// How it pages, in words (e.g. `Link header (rel="next", rel="last")`).
    public var pagination: String
    /// The API root used when a feed gives no `base_url`.
    public var defaultBaseURL: String
    /// The page size used when a feed gives no `per_page`.
    public var defaultPageSize: Int
    /// The largest page size the API accepts.
    public var maxPageSize: Int
    /// What keys beyond ``parameters`` mean, when the type accepts any others (the `http` source
    /// takes them as URI template variables); `nil` (the default) makes an unknown key a
    /// configuration error with a did-you-mean.
    public var additionalParameters: String?

    /// Creates a descriptor.
    public init(
        typeName: String, summary: String, parameters: [ParameterSpec], pagination: String,
        defaultBaseURL: String, defaultPageSize: Int, maxPageSize: Int, additionalParameters: String? = nil
    ) {
        self.additionalParameters = additionalParameters
        self.typeName = typeName
        self.summary = summary
        self.parameters = parameters
        self.pagination = pagination
        self.defaultBaseURL = defaultBaseURL
        self.defaultPageSize = defaultPageSize
        self.maxPageSize = maxPageSize
    }
}

/// How a source's items are ordered on the wire, which the engine uses to stop early.
public enum ItemOrdering: Sendable, Equatable {
    /// Newest first by the items' `sortDate`.
    case newestFirst
    /// No date order (e.g. members by login).
    case unordered
}

/// The plugin API: a source type knows its endpoint, its pagination and how to map a page.
///
/// A conformer must:
/// - give a ``descriptor`` whose `typeName` is unique and whose parameters list every key it reads;
/// - in ``init(feed:parameters:)``, read its parameters through ``FeedParameters`` (which throws
///   located ``ConfigError``s) and do no I/O;
/// - build ``firstPageURL`` from ``FeedContext/endpoint(_:query:)`` so `base_url` is honoured;
/// - pick a ``PaginationStrategy`` instead of writing a paging loop;
/// - map a page in ``decodePage(_:)`` without side effects, throwing ``PageDecodeError`` with a
///   JSON path when the body is not the expected shape;
/// - put credentials in ``credentialHeaders`` only (the engine sends them to the feed's own origin
///   and redacts them from every log and error).
///
/// `FeedSourceConformance` in `FeedaggTesting` checks these rules for a conformer; the article
/// <doc:WritingASource> walks through writing one (`swift package new-source` scaffolds it).
public protocol FeedSource: Sendable {
    /// Static facts about the type.
    static var descriptor: SourceDescriptor { get }
    /// Reads the feed's parameters; throws ``ConfigError`` pointing at the offending YAML.
    init(feed: FeedContext, parameters: FeedParameters) throws
    /// The URL of the first page (without paging parameters; the strategy adds them).
    var firstPageURL: URL { get }
    /// How to go from one page to the next.
    var pagination: any PaginationStrategy { get }
    /// Headers sent with every request (e.g. `Accept`).
    var requestHeaders: HTTPHeaders { get }
    /// Credential headers, sent only to the feed's own origin, never logged.
    var credentialHeaders: HTTPHeaders { get }
    /// The wire order of items.
    var ordering: ItemOrdering { get }
    /// Page 1's URL asking only for items updated at or after `date`, when the API offers such a
    /// filter (GitHub gists' `since`); `nil` when it does not. Used as a watermark by incremental pulls.
    func firstPageURL(updatedSince date: Date) -> URL?
    /// Maps one page of the response into items (and, for page-number APIs, the totals).
    func decodePage(_ page: FetchedPage) throws -> DecodedPage
}

extension FeedSource {
    public var requestHeaders: HTTPHeaders { [:] }
    public var credentialHeaders: HTTPHeaders { [:] }
    public var ordering: ItemOrdering { .unordered }
    public func firstPageURL(updatedSince date: Date) -> URL? { nil }
    /// The source type name of this instance.
    public var typeName: String { Self.descriptor.typeName }
}

/// A page's response, as handed to ``FeedSource/decodePage(_:)``.
public struct FetchedPage: Sendable {
    /// 1-based position of this page in the walk.
    public var number: Int
    /// The URL that was requested.
    public var url: URL
    /// The response.
    public var response: HTTPResponse

    /// Creates a fetched page.
    public init(number: Int, url: URL, response: HTTPResponse) {
        self.number = number
        self.url = url
        self.response = response
    }
}

/// Totals a page-number API reports in its body.
public struct PageTotals: Sendable, Equatable {
    /// The page the body says it is.
    public var currentPage: Int?
    /// How many pages there are.
    public var totalPages: Int?
    /// How many items there are.
    public var totalItems: Int?

    /// Creates totals.
    public init(currentPage: Int? = nil, totalPages: Int? = nil, totalItems: Int? = nil) {
        self.currentPage = currentPage
        self.totalPages = totalPages
        self.totalItems = totalItems
    }
}

/// The result of mapping one page.
public struct DecodedPage: Sendable {
    /// The page's items, in wire order.
    public var items: [FeedItem]
    /// Totals from the body, for page-number pagination.
    public var totals: PageTotals?
    /// The token that fetches the next page, for cursor pagination (`nil` or empty: last page).
    public var nextCursor: String?

    /// Creates a decoded page.
    public init(items: [FeedItem], totals: PageTotals? = nil, nextCursor: String? = nil) {
        self.items = items
        self.totals = totals
        self.nextCursor = nextCursor
    }
}

/// A page body that is not what the source expected.
public struct PageDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// JSON path of the problem (`$`, `$[3].owner.login`, `$.photos`).
    public var path: String
    /// What was wrong.
    public var message: String

    /// Creates a decode error.
    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(message) at \(path)" }
}

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

/// Percent-encoding for query components and path segments.
public enum QueryEncoding {
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Encodes everything but RFC 3986 unreserved characters.
    public static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
