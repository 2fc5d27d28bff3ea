import FeedCore
import Foundation

/// A list endpoint with Link pagination whose items are the array elements that carry an id.
///
/// Test-only: it exists to replay recorded walks of endpoints no built-in source covers (issues,
/// gist comments, stargazers). It sends the first URL exactly as recorded (no `per_page` added).
struct RecordedListSource: FeedSource {
    static let descriptor = SourceDescriptor(
        typeName: "test.list",
        summary: "elements of a JSON array that carry an id (test only)",
        parameters: [
            ParameterSpec("path", .string, required: true, "path and query of page 1, e.g. /repos/o/r/issues?per_page=3"),
            ParameterSpec("id_path", .string, "dot-separated key path of each element's id (default: id)"),
        ],
        pagination: #"Link header (rel="next", rel="last")"#,
        defaultBaseURL: "https://api.github.com",
        defaultPageSize: 30,
        maxPageSize: 100)

    let firstPageURL: URL
    let idPath: [String]
    /// Sent as `Authorization: token …` to the feed's origin, when set.
    var token: String?
    /// Give each item its element's JSON as ``FeedItem/raw`` (re-serialised).
    var rawJSON = false

    /// A source whose page 1 is `firstPageURL`, exactly.
    init(firstPageURL: URL, idPath: [String] = ["id"], token: String? = nil) {
        self.firstPageURL = firstPageURL
        self.idPath = idPath
        self.token = token
    }

    var credentialHeaders: HTTPHeaders { token.map { ["Authorization": "token \($0)"] } ?? [:] }

    init(feed: FeedContext, parameters: FeedParameters) throws {
        let target = try parameters.requiredString("path")
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        var components = URLComponents(url: feed.endpoint(parts[0]), resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = parts.count > 1 ? parts[1] : nil
        guard let url = components?.url else {
            throw ConfigError("'path' is not a valid path and query: \(target)", at: parameters.value("path")?.location)
        }
        firstPageURL = url
        idPath = (try parameters.string("id_path") ?? "id").split(separator: ".").map(String.init)
    }

    var pagination: any PaginationStrategy { LinkHeaderPagination(pageSizeParameter: nil) }

    func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        let body = page.response.body
        guard let elements = (try? JSONSerialization.jsonObject(with: body)) as? [Any] else {
            throw PageDecodeError(path: "$", "expected a JSON array")
        }
        let items = elements.compactMap { element -> FeedItem? in
            guard let id = Self.identity(of: element, at: idPath) else { return nil }
            let raw = rawJSON ? try? JSONSerialization.data(withJSONObject: element, options: .sortedKeys) : nil
            return FeedItem(id: "\(Self.descriptor.typeName):\(id)", title: id, raw: raw)
        }
        return DecodedPage(items: items)
    }

    /// The integer or string at `path` in `element`, as text.
    static func identity(of element: Any, at path: [String]) -> String? {
        var value: Any? = element
        for key in path { value = (value as? [String: Any])?[key] }
        switch value {
        case let number as Int: return String(number)
        case let text as String: return text
        default: return nil
        }
    }
}
