import FeedaggKit
import FeedCore
import FeedSearch
import Foundation
import Hummingbird
import HummingbirdCore

/// The query of a stream request (`/api/items`, `/stream.atom`, `/feeds/{name}.json`,
/// `/views/{name}.atom`, `/`): `limit`, `after`, `feed` and `source` (both repeatable), `q` (a
/// search, docs/query.md) and `view` (a saved view), checked against the running configuration.
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
    /// `q` as given (kept in the next page's URL), `nil` for none.
    var search: String?
    /// `q` parsed; ``SearchQuery/everything`` for none.
    var query = SearchQuery.everything
    /// `view`: a saved view's name (ANDed with `q`), `nil` for none.
    var view: String?

    /// Reads and checks the query of `uri`: numbers in range, no `page` (the server pages by cursor
    /// only: a page number costs a walk to it, a cursor one page; `feedagg show --page` keeps them),
    /// feeds declared in `names`, sources among `sourceTypes`, a view among `views` (did-you-mean,
    /// no file paths), and a `q` that parses (400 with the parse error, its column and a caret);
    /// `q` is left out when `search` is false.
    init(_ uri: URI, names: [String], sourceTypes: [String], views: [String] = [], search: Bool = true) throws(RequestProblem) {
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
        if let view = parameters["view"], !view.isEmpty {
            let name = String(view)
            guard views.contains(name) else { throw Self.unknownView(name, among: views) }
            self.view = name
        }
        if search, let text = Self.search(in: uri) {
            self.search = text
            query = try Self.parse(text)
        }
    }

    /// The search `q` of `uri`, decoded as an HTML form sends it (`+` is a space, as the page's
    /// search box writes it), `nil` when absent or blank.
    static func search(in uri: URI) -> String? {
        guard let raw = uri.query else { return nil }
        for pair in raw.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, formDecoded(parts[0]) == "q" else { continue }
            let text = formDecoded(parts[1])
            return text.allSatisfy(\.isWhitespace) ? nil : text
        }
        return nil
    }

    /// `text` with `+` as a space and percent-escapes decoded (as it was, when they do not decode).
    static func formDecoded(_ text: Substring) -> String {
        // Most pairs have nothing to decode (`limit=50`): no Foundation call for them.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return String(text) }
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// `text` parsed, or a 400 whose message is the parse error (`query:1:COL: error: …`, the
    /// query, a caret).
    static func parse(_ text: String) throws(RequestProblem) -> SearchQuery {
        do {
            return try SearchQuery(parsing: text)
        } catch {
            throw RequestProblem(.badRequest, error.description)
        }
    }

    /// The 404 of a view the configuration does not declare.
    static func unknownView(_ name: String, among views: [String]) -> RequestProblem {
        RequestProblem(
            .notFound,
            "no view named '\(name)'" + (views.isEmpty ? "; feeds.yaml declares no views" : hint(name, among: views, noun: "views")))
    }

    /// `; did you mean 'x'? feeds: a, b`.
    static func hint(_ text: String, among candidates: [String], noun: String) -> String {
        let closest = Suggestion.closest(to: text, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
        return closest + "; \(noun): " + candidates.joined(separator: ", ")
    }

    /// The query string of this listing (limit when not the default, feeds, sources, view, q)
    /// followed by `after=cursor` when given: the next page's query. Percent-encoded.
    func queryString(after cursor: String?) -> String {
        var pairs: [(String, String)] = []
        if limit != Self.defaultLimit { pairs.append(("limit", String(limit))) }
        pairs += feeds.map { ("feed", $0) } + sources.map { ("source", $0) }
        if let view { pairs.append(("view", view)) }
        if let search { pairs.append(("q", search)) }
        if let cursor { pairs.append(("after", cursor)) }
        return pairs.map { Self.encoded($0.0) + "=" + Self.encoded($0.1) }.joined(separator: "&")
    }

    /// `text` with everything but RFC 3986's unreserved characters percent-encoded.
    static func encoded(_ text: String) -> String { PercentEncoding.encoded(text) }
}
