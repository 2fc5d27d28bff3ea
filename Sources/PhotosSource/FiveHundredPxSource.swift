public import FeedCore
public import Foundation

/// `photos.500px`: a 500px photo stream (`/v1/photos?feature=…`).
///
/// - `feature` defaults to `popular`, the stream the 500px API serves when none is named (and
///   the one every recorded response used); `editors`, `upcoming`, `fresh_today`… select others.
/// - `consumer_key` is 500px's API key. 500px only accepts it as a query parameter, so it is part
///   of the URL rather than a credential header; ``Redaction`` removes it from printed URLs.
/// - The common `per_page` is sent as `rpp`; pages are numbered (`page`) and the body's
///   `current_page`/`total_pages`/`total_items` let the engine fetch the rest concurrently.
///
/// Items: title = `name` (`Untitled` when empty), summary = `description` as plain text (tags
/// removed, entities decoded, whitespace collapsed, at most 200 characters), image = `image_url`
/// (relative values resolved against `base_url`), author = the photographer, published =
/// `created_at`. Feature streams are ranked, not dated: ``ItemOrdering/unordered``.
public struct FiveHundredPxSource: FeedSource {
    /// The stream used when a feed names none.
    public static let defaultFeature = "popular"
    /// The web site that photo and profile pages live on.
    static let webRoot = "https://500px.com"
    /// The longest summary, in characters.
    static let summaryLimit = 200

    /// The source type's static facts.
    public static let descriptor = SourceDescriptor(
        typeName: "photos.500px",
        summary: "a 500px photo stream (popular, editors, upcoming, fresh_today, …)",
        parameters: [
            ParameterSpec(
                "feature", .string, default: defaultFeature, "photo stream: popular, editors, upcoming, fresh_today, …"),
            ParameterSpec("only", .string, "only photos of this category name, e.g. Landscapes"),
            ParameterSpec("consumer_key", .secret, "500px consumer key, sent as the 'consumer_key' query parameter"),
        ],
        pagination: "page number (page, rpp), totals from the body",
        defaultBaseURL: "https://api.500px.com",
        defaultPageSize: 20,
        maxPageSize: 100, credential: CredentialSpec(parameter: "consumer_key"),
        example: [
            "  - name: editors-photos",
            "    source: photos.500px",
            "    feature: editors",
            "    consumer_key: ${PX_CONSUMER_KEY}   # your 500px key, from the environment",
            "    max_pages: 2",
        ])

    /// The `feature` sent: ``defaultFeature`` unless the feed names another stream.
    public let feature: String
    /// The category filter, if any.
    public let only: String?
    /// `/v1/photos?feature=…[&only=…][&consumer_key=…]` under the feed's `base_url`.
    public let firstPageURL: URL
    private let baseURL: URL

    /// Reads `feature`, `only` and `consumer_key`.
    public init(feed: FeedContext, parameters: FeedParameters) throws {
        feature = try parameters.string("feature") ?? Self.defaultFeature
        guard !feature.isEmpty else {
            throw ConfigError(
                "'feature' must not be empty", at: parameters.value("feature")?.location ?? parameters.node.location)
        }
        only = try parameters.string("only").flatMap { $0.isEmpty ? nil : $0 }
        let key = try parameters.secret("consumer_key")
        baseURL = feed.baseURL
        var query = [("feature", feature)]
        if let only { query.append(("only", only)) }
        if let key { query.append(("consumer_key", key.value)) }
        firstPageURL = feed.endpoint("/v1/photos", query: query)
    }

    /// `?page=N&rpp=M`, stopping on the body's totals or a short page.
    public var pagination: any PaginationStrategy {
        PageNumberPagination(pageParameter: "page", pageSizeParameter: "rpp")
    }
    /// `Accept: application/json`.
    public var requestHeaders: HTTPHeaders { ["Accept": "application/json"] }
    /// Ranked streams have no date order.
    public var ordering: ItemOrdering { .unordered }

    /// Maps the envelope `{current_page, total_pages, total_items, photos: [...]}` to items and
    /// totals; `total_pages` is required.
    public func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        let items = try items(from: try decodePhotos(page))
        let totals = PageTotals(
            currentPage: try JSONPage.integerMember("current_page", in: page),
            totalPages: try JSONPage.integerMember("total_pages", in: page),
            totalItems: try JSONPage.integerMember("total_items", in: page))
        // 500px always sends the page count: an envelope without it is not the API's (a proxy's
        // rewrite, another endpoint), and walking it until a short page would guess.
        guard totals.totalPages != nil else {
            throw PageDecodeError(path: "$.total_pages", "expected the page count (an integer), found nothing (absent or null)")
        }
        return DecodedPage(items: items, totals: totals)
    }

    /// The page's photos, decoded but not yet mapped (the first half of ``decodePage(_:)``, which
    /// then reads the totals).
    /// One pass over the photos with ``PhotoDTO/fields``; through `Decodable` (driven by the same
    /// table) when that reader cannot decode the page exactly as `Decodable` would.
    package func decodePhotos(_ page: FetchedPage) throws -> [JSONPage.Element<PhotoDTO>] {
        try JSONPage.requireJSON(page)
        try Self.requireEnvelope(page.response.body)
        return try JSONPage.elements(PhotoDTO.self, in: page, at: ["photos"], reading: PhotoDTO.init(reading:))
    }

    /// Decoded photos as items.
    package func items(from elements: [JSONPage.Element<PhotoDTO>]) throws -> [FeedItem] {
        try elements.map { element in
            try item(element.value, raw: element.raw, path: "$.photos[\(element.index)]")
        }
    }

    /// Rejects a body that is not an object, naming the shape that was expected.
    package static func requireEnvelope(_ body: Data) throws {
        let first = body.first { !($0 == 32 || $0 == 9 || $0 == 10 || $0 == 13) }
        guard let first, first != UInt8(ascii: "{") else { return }
        let found = switch first {
        case UInt8(ascii: "["): "a bare array"
        case UInt8(ascii: "\""): "a string"
        case UInt8(ascii: "n"): "null"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "a boolean"
        default: "a number"
        }
        throw PageDecodeError(
            path: "$",
            "expected the 500px envelope object {current_page, total_pages, total_items, photos: [...]}, found \(found)")
    }

    private func item(_ photo: PhotoDTO, raw: Data, path: String) throws -> FeedItem {
        let title = photo.name.map(PlainText.line).flatMap { $0.isEmpty ? nil : $0 } ?? "Untitled"
        let summary = photo.description.map { PlainText.summary(fromHTML: $0, limit: Self.summaryLimit) }
        return FeedItem(
            id: "\(Self.descriptor.typeName):\(photo.id)",
            title: title,
            summary: summary.flatMap { $0.isEmpty ? nil : $0 },
            url: pageURL(photo),
            author: photo.user.flatMap(author),
            imageURL: photo.bestImageURL.flatMap { Self.absolute($0, against: baseURL) },
            published: try ISO8601.timestamp(photo.createdAt, at: "\(path).created_at"),
            raw: raw)
    }

    /// The photo's web page: its `url` made absolute on 500px.com, else `/photo/<id>`.
    private func pageURL(_ photo: PhotoDTO) -> String {
        if let path = photo.url, !path.isEmpty, let absolute = Self.onWeb(path) { return absolute }
        return "\(Self.webRoot)/photo/\(photo.id)"
    }

    private func author(_ user: PhotoDTO.User) -> FeedAuthor? {
        let username = user.username.flatMap { $0.isEmpty ? nil : $0 }
        let fullname = user.fullname.map(PlainText.line).flatMap { $0.isEmpty ? nil : $0 }
        guard let name = fullname ?? username else { return nil }
        let avatar = [user.userpicHTTPSURL, user.userpicURL].lazy.compactMap { $0 }.first { !$0.isEmpty }
        return FeedAuthor(
            name: name,
            url: username.map { "\(Self.webRoot)/\(QueryEncoding.encode($0))" },
            avatarURL: avatar.flatMap(Self.onWeb))
    }

    /// ``webRoot`` as a URL, parsed once.
    private static let webRootURL = URL(string: webRoot)

    /// `reference` resolved against the 500px web site.
    static func onWeb(_ reference: String) -> String? {
        webRootURL.flatMap { absolute(reference, against: $0) }
    }

    /// `reference` resolved against `base` (unchanged when already absolute); `nil` if unparsable.
    static func absolute(_ reference: String, against base: URL) -> String? {
        if let url = URL(string: reference), url.scheme != nil { return url.absoluteString }
        return URL(string: reference, relativeTo: base)?.absoluteURL.absoluteString
    }
}
