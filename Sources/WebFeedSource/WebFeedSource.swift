public import FeedCore
public import Foundation

/// `feed`: an RSS 0.9x/2.0, RSS 1.0 (RDF), Atom 0.3/1.0 or JSON Feed 1.0/1.1 document, read from `url`.
///
/// ```yaml
/// - name: swift-releases
///   source: feed
///   url: https://github.com/swiftlang/swift/releases.atom
/// ```
///
/// The format is detected from the body (``FeedDocument/parse(_:contentType:url:limits:)``).
/// Pages follow Atom `<link rel="next">` (RFC 5005) and JSON Feed `next_url` through
/// ``NextLinkPagination``; `max_pages` bounds the walk as for every feed. Item ids are
/// `<feed name>:` followed by the entry's ``FeedEntry/stableID``.
///
/// `url` is used as written unless the feed sets `base_url` (or `--replay` rebases it): then the
/// URL's path and query are taken onto `base_url`'s origin and path, as for every source.
public struct WebFeedSource: FeedSource {
    /// The base URL a feed without `base_url` gets: a placeholder meaning "the url's own origin".
    static let ownOrigin = "https://feed-url.invalid"

    /// The source type's static facts.
    public static let descriptor = SourceDescriptor(
        typeName: "feed",
        summary: "an RSS 0.9x/2.0, RSS 1.0 (RDF), Atom 0.3/1.0 or JSON Feed 1.0/1.1 document (format detected from the body)",
        parameters: [
            ParameterSpec("url", .string, required: true, "the feed's URL (absolute, or a path under base_url)"),
            ParameterSpec(
                "max_bytes", .integer, default: "16777216",
                "largest document accepted, in bytes (16777216 is 16 MiB; at most 64 MiB); a larger one is this feed's error"),
        ],
        pagination: "Atom <link rel=\"next\"> (RFC 5005) and JSON Feed next_url; a feed without one is one page",
        defaultBaseURL: ownOrigin,
        defaultPageSize: 1,
        maxPageSize: 10_000,
        example: [
            "  - name: swift-releases",
            "    source: feed",
            "    url: https://github.com/swiftlang/swift/releases.atom",
        ])

    /// The document's URL.
    public let firstPageURL: URL
    /// Size and entry limits applied to every page.
    public let limits: FeedDocument.Limits
    private let feedName: String

    /// Reads `url` and `max_bytes`; a `url` that is not http(s) is a ``ConfigError`` at its value.
    public init(feed: FeedContext, parameters: FeedParameters) throws {
        let text = try parameters.requiredString("url")
        let location = parameters.value("url")?.location ?? parameters.node.location
        let ownOrigin = feed.baseURL.absoluteString == Self.ownOrigin
        let resolved = ownOrigin ? URL(string: text) : Self.onto(text, feed.baseURL)
        guard let url = resolved, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw ConfigError(
                "'url' must be an absolute http(s) URL\(ownOrigin ? "" : " or a path under base_url"), found '\(text)'",
                at: location)
        }
        firstPageURL = url
        limits = FeedDocument.Limits(maxBytes: try parameters.integer("max_bytes", in: 1024...(64 << 20)) ?? (16 << 20))
        feedName = feed.name
    }

    /// `reference`'s path and query under `base` (its origin and path prefix).
    static func onto(_ reference: String, _ base: URL) -> URL? {
        guard let parsed = URLComponents(string: reference) else { return nil }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return nil }
        var prefix = components.percentEncodedPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        var path = parsed.percentEncodedPath
        if !path.hasPrefix("/") { path = "/" + path }
        components.percentEncodedPath = prefix + path
        components.percentEncodedQuery = parsed.percentEncodedQuery
        return components.url
    }

    /// Follows the next link the body names.
    public var pagination: any PaginationStrategy { NextLinkPagination() }

    /// `the document at URL, following its next links`: no placeholder base URL, no page size.
    public func validationSummary(context: FeedContext) -> String? {
        "the document at \(Redaction.shown(firstPageURL)), following its next links (RFC 5005, next_url)"
    }

    /// Asks for the feed formats first.
    public var requestHeaders: HTTPHeaders {
        [
            "Accept":
                "application/atom+xml, application/rss+xml, application/feed+json, application/rdf+xml;q=0.9, "
                + "application/xml;q=0.8, text/xml;q=0.8, application/json;q=0.7, */*;q=0.1"
        ]
    }

    /// Parses the body into items and the next page's URL.
    public func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        let document: FeedDocument
        do {
            document = try FeedDocument.parse(
                page.response.body, contentType: page.response.headers["Content-Type"], url: page.response.url,
                limits: limits)
        } catch {
            throw error.pageDecodeError
        }
        var seen = Set<String>()
        var items: [FeedItem] = []
        for entry in document.entries {
            let item = entry.item(feedName: feedName)
            // A document listing one entry twice shows it once (the first).
            if seen.insert(item.id).inserted { items.append(item) }
        }
        return DecodedPage(items: items, nextCursor: document.nextURL?.absoluteString)
    }
}
