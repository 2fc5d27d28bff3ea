import FeedaggKit
import FeedCore
import Hummingbird
import HummingbirdCore

/// The query of a stream request (`/api/items`, `/stream.atom`, `/feeds/{name}.json`, `/`):
/// `limit`, `after`, `feed` and `source` (both repeatable), checked against the running
/// configuration.
struct StreamQuery: Sendable, Equatable {
    /// Items per page when `limit` is absent (`show`'s `--per-page` default).
    static let defaultLimit = 20
    /// The accepted `limit`s: at most 500 items a request, so one request cannot make the server
    /// render the whole store (`show --per-page` has its own, larger bound).
    static let limits = 1...500

    var limit = StreamQuery.defaultLimit
    var after: String?
    var feeds: [String] = []
    var sources: [String] = []

    /// Reads and checks the query of `uri`: numbers in range, no `page` (the server pages by cursor
    /// only: a page number costs a walk to it, a cursor one page; `feedagg show --page` keeps them),
    /// feeds declared in `names`, sources among `sourceTypes` (did-you-mean, no file paths).
    init(_ uri: URI, names: [String], sourceTypes: [String]) throws(RequestProblem) {
        let parameters = uri.queryParameters
        if let text = parameters["limit"] {
            guard let limit = Int(text), Self.limits.contains(limit) else {
                throw RequestProblem(.badRequest, "limit must be a number from 1 to \(Self.limits.upperBound)")
            }
            self.limit = limit
        }
        if parameters["page"] != nil {
            throw RequestProblem(
                .badRequest,
                "page= is not served: follow next_cursor with after=CURSOR (the Link header's URL does); "
                    + "feedagg show --page N reads pages by number")
        }
        if let after = parameters["after"], !after.isEmpty { self.after = String(after) }
        feeds = parameters[values: "feed"].map(String.init).filter { !$0.isEmpty }
        sources = parameters[values: "source"].map(String.init).filter { !$0.isEmpty }
        for feed in feeds where !names.contains(feed) {
            throw RequestProblem(.notFound, "no feed named '\(feed)'" + Self.hint(feed, among: names, noun: "feeds"))
        }
        for source in sources where !sourceTypes.contains(source) {
            throw RequestProblem(
                .badRequest, "unknown source type '\(source)'" + Self.hint(source, among: sourceTypes, noun: "source types"))
        }
    }

    /// `; did you mean 'x'? feeds: a, b`.
    static func hint(_ text: String, among candidates: [String], noun: String) -> String {
        let closest = Suggestion.closest(to: text, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
        return closest + "; \(noun): " + candidates.joined(separator: ", ")
    }

    /// The query string of this listing (limit when not the default, feeds, sources) followed by
    /// `after=cursor` when given: the next page's query. Percent-encoded.
    func queryString(after cursor: String?) -> String {
        var pairs: [(String, String)] = []
        if limit != Self.defaultLimit { pairs.append(("limit", String(limit))) }
        pairs += feeds.map { ("feed", $0) } + sources.map { ("source", $0) }
        if let cursor { pairs.append(("after", cursor)) }
        return pairs.map { Self.encoded($0.0) + "=" + Self.encoded($0.1) }.joined(separator: "&")
    }

    /// `text` with everything but RFC 3986's unreserved characters percent-encoded.
    static func encoded(_ text: String) -> String { PercentEncoding.encoded(text) }
}
