import FeedCore
import Foundation
import LoopbackServer
import Synchronization
import Testing

/// An in-process API with offset and cursor pagination, recording every request it serves.
final class PagedAPI: Sendable {
    let requests = Mutex<[LoopbackRequest]>([])
    let total: Int
    /// When set, every cursor page names this same token (a misbehaving API).
    let stuckCursor: String?

    init(total: Int, stuckCursor: String? = nil) {
        self.total = total
        self.stuckCursor = stuckCursor
    }

    static func query(_ request: LoopbackRequest) -> [String: String] {
        var out: [String: String] = [:]
        for pair in (request.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            out[parts[0]] = parts.count > 1 ? (parts[1].removingPercentEncoding ?? parts[1]) : ""
        }
        return out
    }

    func item(_ index: Int) -> String {
        #"{"uid": \#(index + 1000), "label": "item \#(index)", "when": \#(1_700_000_000 - index * 60), "lang": "Swift", "about": "number \#(index)"}"#
    }

    func handle(_ request: LoopbackRequest) -> LoopbackResponse {
        requests.withLock { $0.append(request) }
        let query = Self.query(request)
        let json = [("Content-Type", "application/json")]
        switch request.path {
        case "/items":
            let offset = Int(query["offset"] ?? "0") ?? 0
            let limit = Int(query["limit"] ?? "10") ?? 10
            let slice = (offset..<min(total, offset + limit)).map(item)
            let totalField = query["with_total"] == "no" ? "" : #""total": \#(total), "#
            return LoopbackResponse(headers: json, text: #"{\#(totalField)"data": [\#(slice.joined(separator: ","))]}"#)
        case "/events":
            let start = query["after"].flatMap { Int($0.split(separator: "/").last ?? "") } ?? 0
            let limit = Int(query["first"] ?? "10") ?? 10
            let end = min(total, start + limit)
            let next = stuckCursor.map { #""\#($0)""# } ?? (end < total ? #""c/\#(end)""# : "null")
            let events = (start..<end).map(item).joined(separator: ",")
            return LoopbackResponse(headers: json, text: #"{"events": [\#(events)], "meta": {"next": \#(next)}}"#)
        default:
            return LoopbackResponse(status: 404, headers: json, text: #"{"message": "Not Found"}"#)
        }
    }
}

@Suite("Declarative offset and cursor pagination over loopback")
struct LoopbackPaginationTests {
    static func offsetFeed(_ base: String, withTotal: Bool) -> String {
        """
        feeds:
          - name: offset-feed
            source: http
            base_url: \(base)
            url: "{+base_url}/items{?with_total}"
            with_total: \(withTotal ? "yes" : "no")
            per_page: 10
            pagination: { style: offset, offset_param: offset, limit_param: limit\(withTotal ? #", total: "$.total""# : "") }
            items: "$.data"
            order: newest_first
            fields:
              id: "$.uid"
              title: "$.label"
              summary: "{about} ({lang})"
              url: "/items/{uid}"
              published: "$.when"
              date_format: unix

        """
    }

    @Test("offset with a total: page 1, then the remaining offsets fanned out", arguments: [true, false])
    func offset(withTotal: Bool) async throws {
        let api = PagedAPI(total: 23)
        try await LoopbackHTTPServer.withServer(handler: { api.handle($0) }) { server in
            let report = try await Declared.pull(Self.offsetFeed(server.baseURL, withTotal: withTotal))
            let result = try Declared.result(report, "offset-feed")
            #expect(result.items.map(\.id) == (0..<23).map { "offset-feed:\($0 + 1000)" })
            #expect(result.items.first?.summary == "number 0 (Swift)")
            #expect(result.items.first?.url == "\(server.baseURL)/items/1000", "a path-only link is resolved against the page")
            #expect(result.items.first?.published == Date(timeIntervalSince1970: 1_700_000_000))
            #expect(result.requests == 3)
            let targets = api.requests.withLock { $0.map(\.target) }.sorted()
            let flag = withTotal ? "yes" : "no"
            #expect(targets == [0, 10, 20].map { "/items?with_total=\(flag)&offset=\($0)&limit=10" })
        }
    }

    static func cursorFeed(_ base: String) -> String {
        """
        feeds:
          - name: cursor-feed
            source: http
            base_url: \(base)
            url: "{+base_url}/events"
            per_page: 10
            token: s3cret-token
            headers: { X-Client: feedagg-test, X-Api-Key: k3y-value }
            pagination: { style: cursor, cursor_param: after, size_param: first, next: "$.meta.next" }
            items: "$.events"
            fields: { id: "$.uid", title: "$.label", published: "$.when", date_format: unix }

        """
    }

    @Test("cursor: each page's token fetches the next until it is null; credentials go to the origin")
    func cursor() async throws {
        let api = PagedAPI(total: 25)
        try await LoopbackHTTPServer.withServer(handler: { api.handle($0) }) { server in
            let report = try await Declared.pull(Self.cursorFeed(server.baseURL))
            let result = try Declared.result(report, "cursor-feed")
            #expect(result.items.map(\.title) == (0..<25).map { "item \($0)" })
            #expect(result.requests == 3)
            let requests = api.requests.withLock { $0 }
            #expect(requests.map(\.target) == ["/events?first=10", "/events?first=10&after=c%2F10", "/events?first=10&after=c%2F20"])
            for request in requests {
                #expect(request.header("Authorization") == "Bearer s3cret-token")
                #expect(request.header("X-Api-Key") == "k3y-value")
                #expect(request.header("X-Client") == "feedagg-test")
                #expect(request.header("Accept") == "application/json")
            }
        }
    }

    @Test("cursor: an API that repeats a token is stopped by the cycle guard")
    func cursorCycle() async throws {
        let api = PagedAPI(total: 25, stuckCursor: "same")
        try await LoopbackHTTPServer.withServer(handler: { api.handle($0) }) { server in
            let report = try await Declared.pull(Self.cursorFeed(server.baseURL))
            let result = try #require(report.results.first)
            #expect(result.items.count == 20, "pages 1 and 2 are kept")
            #expect(result.requests == 2)
            #expect(result.error.map { "\($0)".contains("cycle") } == true, "\(String(describing: result.error))")
        }
    }
}
