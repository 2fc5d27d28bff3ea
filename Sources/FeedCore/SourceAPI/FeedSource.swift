public import Foundation

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
    /// How errors name a request for `url`, when not `GET <url>`: a source whose requests never
    /// reach the network (an exec plugin's placeholder endpoints) names them in its own terms.
    /// `nil` (the default) for `GET <url>`, secrets redacted.
    func requestDescription(for url: URL) -> String?
    /// What `feedagg validate` says the feed reads, after its name and type: by default `nil`,
    /// for `<base URL>, <pagination> pagination, N per page`; a source whose requests are not
    /// pages of an API (a feed document, a plugin) says it in its own terms.
    func validationSummary(context: FeedContext) -> String?
    /// Problems of the feed found on this machine that do not stop a run, for `feedagg validate`
    /// (a plugin that does not exist, an `env:` value whose variable is unset): each with the
    /// location of the value it is about. Empty by default.
    func setupWarnings() -> [SetupWarning]
}

/// A problem ``FeedSource/setupWarnings()`` found: rendered `file:line:col: warning: message`.
public struct SetupWarning: Sendable, CustomStringConvertible {
    /// Where the value it is about is written.
    public var location: SourceLocation
    /// What is wrong, naming the feed.
    public var message: String

    /// Creates a warning.
    public init(at location: SourceLocation, _ message: String) {
        self.location = location
        self.message = message
    }

    /// `<file:line:column>: warning: <message>`.
    public var description: String { "\(location): warning: \(message)" }
}

extension FeedSource {
    /// Default: no extra request headers.
    public var requestHeaders: HTTPHeaders { [:] }
    /// Default: no credential.
    public var credentialHeaders: HTTPHeaders { [:] }
    /// Default: ``ItemOrdering/unordered``.
    public var ordering: ItemOrdering { .unordered }
    /// Default: `nil`, the API has no `since`-style filter.
    public func firstPageURL(updatedSince date: Date) -> URL? { nil }
    /// Default: `nil`, requests are described by their URL.
    public func requestDescription(for url: URL) -> String? { nil }
    /// Default: `nil`, `feedagg validate` says nothing more about the feed.
    public func validationSummary(context: FeedContext) -> String? { nil }
    /// Default: no warnings.
    public func setupWarnings() -> [SetupWarning] { [] }
    /// The source type name of this instance.
    public var typeName: String { Self.descriptor.typeName }
}
