public import FeedCore
public import Foundation

/// `http`: a JSON API declared entirely in feeds.yaml, no code.
///
/// ```yaml
/// - name: photos-declared
///   source: http
///   base_url: https://api.example.com
///   url: "{+base_url}/v1/photos{?feature,rpp}"   # RFC 6570; variables are the feed's keys
///   feature: editors
///   rpp: 100
///   pagination: { style: page, page_param: page, total_pages: "$.total_pages" }
///   items: "$.photos"                             # JSON path of the item array
///   fields: { id: "$.id", title: "$.name", url: "$.image_url" }
/// ```
///
/// - `url` is an RFC 6570 template expanded once, when the feed is loaded. Its variables are
///   `base_url` (without trailing slashes, rebased in replay mode), `per_page` (the feed's page
///   size) and the feed's other keys: a scalar is a string, a list a list, a mapping an
///   associative array. A variable the feed does not define, or an extra key the template does
///   not use, is a configuration error.
/// - `pagination.style` is `link` (default), `page`, `offset` or `cursor` (see ``Paging``).
/// - `items` and the total/cursor paths are JSON paths over the whole body; `fields` paths are
///   relative to each item. Item ids are `<feed name>:<id>`.
/// - `token` (the feed's own; never inherited from `defaults:`) is sent as
///   `Authorization: Bearer`, and `headers` whose name suggests a credential
///   (`Authorization`, `Cookie`, names holding `key` or `token`) are sent as credentials too:
///   only to `base_url`'s origin, never logged.
public struct HTTPSource: FeedSource {
    /// The keys a feed of this type reads itself (the rest are template variables).
    static let ownKeys: Set<String> = ["url", "pagination", "items", "fields", "headers", "token", "order"]

    /// The source type's static facts.
    public static let descriptor = SourceDescriptor(
        typeName: "http",
        summary: "any JSON API, declared in feeds.yaml: URL template, pagination, item fields",
        parameters: [
            ParameterSpec(
                "base_url", .url, required: true,
                "API root: {+base_url} in the template; credentials are sent to its origin only"),
            ParameterSpec(
                "url", .string, required: true,
                "RFC 6570 URI template of the first page, e.g. \"{+base_url}/orgs/{org}/repos{?per_page}\""),
            ParameterSpec(
                "pagination", .mapping,
                "style: link (default) | page | offset | cursor; page: page_param, size_param, first_page, "
                    + "total_pages, total_items, current_page; offset: offset_param, limit_param, total; "
                    + "cursor: cursor_param, next, size_param; link: size_param"),
            ParameterSpec("items", .string, required: true, "JSON path of the item array (\"$\": the body is the array)"),
            ParameterSpec(
                "fields", .mapping, required: true,
                "id and title (required), url, summary, author, author_url, avatar, image, published, updated: "
                    + "a JSON path relative to the item (\"$.name\") or a text template (\"{description} ({language})\"); "
                    + "date_format: iso8601 (default), unix, unix_ms or a date pattern"),
            ParameterSpec("headers", .mapping, "extra request headers (name: value)"),
            ParameterSpec(
                "token", .secret, "sent as 'Authorization: Bearer' to base_url's origin; never inherited from defaults"),
            ParameterSpec("order", .string, "newest_first or unordered (default): the API's item order"),
        ],
        pagination: "link, page, offset or cursor (the feed's 'pagination' mapping)",
        defaultBaseURL: "",
        defaultPageSize: 30,
        maxPageSize: 10_000,
        additionalParameters:
            "any other key is a variable of the 'url' template: a scalar, a list or a mapping (name: value)",
        credential: CredentialSpec(parameter: "token", inheritsDefaults: false),
        example: [
            "  - name: swift-tags",
            "    source: http",
            "    base_url: https://api.github.com",
            "    url: \"{+base_url}/repos/swiftlang/swift/tags{?per_page}\"",
            "    per_page: 30",
            "    max_pages: 1",
            "    pagination: { style: link }",
            "    items: \"$\"",
            "    fields: { id: \"$.name\", title: \"$.name\", url: \"$.zipball_url\" }",
        ])

    /// The expanded `url`.
    public let firstPageURL: URL
    /// The parsed `url` template.
    public let template: URITemplate
    /// How the feed pages.
    public let paging: Paging
    /// Where the items are in a body.
    public let items: JSONPath
    /// How an item becomes a ``FeedItem``.
    public let mapping: ItemMapping
    /// `newest_first` or `unordered`.
    public let ordering: ItemOrdering
    /// `Accept: application/json` and the non-credential `headers`.
    public let requestHeaders: HTTPHeaders
    /// The token and the credential-like `headers`.
    public let credentialHeaders: HTTPHeaders
    private let idPrefix: String

    /// Reads and checks every key; every problem is a ``ConfigError`` at its line and column.
    public init(feed: FeedContext, parameters: FeedParameters) throws {
        let reader = DeclarationReader(parameters: parameters, typeName: Self.descriptor.typeName)
        let urlNode = try reader.requiredNode("url")
        template = try reader.template(urlNode)
        let variables = try reader.variables(feed: feed)
        try reader.checkTemplateVariables(template, urlNode: urlNode)
        try reader.checkAdditionalKeys(template: template, known: Self.knownKeys)

        let expanded: String
        do {
            expanded = try template.expand(variables)
        } catch {
            throw ConfigError(
                "invalid URI template in 'url': \(error.message)", at: reader.location(in: urlNode, offset: error.offset))
        }
        guard let url = URL(string: expanded), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else {
            throw ConfigError("'url' expands to '\(expanded)', which is not an absolute http(s) URL", at: urlNode.location)
        }
        firstPageURL = url

        paging = try reader.paging(sizeInTemplate: template.variableNames.contains("per_page"))
        items = try reader.path(reader.requiredNode("items"), key: "items")
        mapping = try reader.mapping()
        ordering = try reader.ordering()
        (requestHeaders, credentialHeaders) = try reader.headers()
        idPrefix = feed.name + ":"
    }

    /// Every key a feed of this type knows by name (common and own).
    static var knownKeys: [String] {
        Array(Set((FeedContext.commonParameters + descriptor.parameters).map(\.name))).sorted()
    }

    /// The pagination strategy of ``paging``.
    public var pagination: any PaginationStrategy { paging.strategy }

    /// Maps the body: items at ``items``, each through ``mapping``; totals and the next cursor
    /// from their paths.
    public func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        let (body, elements) = try JSONPage.values(in: page, at: items)
        let formatter = mapping.dateFormat.makeFormatter()
        let base = items.description
        let mapped = try elements.map { element in
            try mapping.item(
                element.value, raw: element.raw, base: "\(base)[\(element.index)]", idPrefix: idPrefix,
                pageURL: page.url, formatter: formatter)
        }
        return DecodedPage(
            items: mapped, totals: try paging.totals(in: body), nextCursor: try paging.nextCursor(in: body))
    }
}

/// A declarative feed's pagination: the strategy and the body paths it reads.
public struct Paging: Sendable {
    /// Every accepted `pagination.style`, for the error and the did-you-mean of a wrong one.
    public static let styles = ["cursor", "link", "offset", "page"]

    /// The strategy the engine runs.
    public var strategy: any PaginationStrategy
    /// `total_pages` (page style).
    public var totalPages: JSONPath?
    /// `total_items` (page style) or `total` (offset style).
    public var totalItems: JSONPath?
    /// `current_page` (page style).
    public var currentPage: JSONPath?
    /// `next` (cursor style): the next page's token.
    public var next: JSONPath?

    /// `strategy` with the body paths it reads, each only for the styles that use it.
    public init(
        strategy: any PaginationStrategy, totalPages: JSONPath? = nil, totalItems: JSONPath? = nil,
        currentPage: JSONPath? = nil, next: JSONPath? = nil
    ) {
        self.strategy = strategy
        self.totalPages = totalPages
        self.totalItems = totalItems
        self.currentPage = currentPage
        self.next = next
    }

    /// The totals the body reports, or `nil` when no total path is configured or none is present.
    public func totals(in body: JSONValue) throws -> PageTotals? {
        guard totalPages != nil || totalItems != nil || currentPage != nil else { return nil }
        let totals = PageTotals(
            currentPage: try integer(currentPage, in: body), totalPages: try integer(totalPages, in: body),
            totalItems: try integer(totalItems, in: body))
        return totals == PageTotals() ? nil : totals
    }

    /// The next page's token (`nil` when absent or null; numbers are used as text).
    public func nextCursor(in body: JSONValue) throws -> String? {
        guard let next, let value = try evaluate(next, in: body) else { return nil }
        guard let text = value.scalarText else {
            throw PageDecodeError(path: next.description, "expected a cursor string, found \(value.kindDescription)")
        }
        return text
    }

    private func integer(_ path: JSONPath?, in body: JSONValue) throws -> Int? {
        guard let path, let value = try evaluate(path, in: body) else { return nil }
        guard let number = value.integerValue else {
            let found = value.scalarText.map { "'\($0.prefix(40))'" } ?? value.kindDescription
            throw PageDecodeError(path: path.description, "expected an integer, found \(found)")
        }
        return number
    }

    private func evaluate(_ path: JSONPath, in body: JSONValue) throws -> JSONValue? {
        do {
            return try path.evaluate(body)
        } catch {
            throw PageDecodeError(path: error.path, error.message)
        }
    }
}
