import FeedCore
public import Foundation
import LoopbackServer
import Synchronization

/// Serves recorded exchanges from a loopback HTTP server, so the real libcurl path runs offline.
///
/// Requests are matched on method, path and query (exactly, else with the query parameters in
/// any order). A request whose `If-None-Match` matches the recorded `ETag` gets `304 Not Modified`,
/// so a second pull over the same recordings is incremental, as against the live API. Recorded origins in response headers (e.g. `Link: <https://api.github.com/…>`)
/// are rewritten to the server's own origin, so pagination stays on the replay server.
/// A request with no recording gets a 404 whose JSON message names it.
public final class ReplayServer: Sendable {
    private let server: LoopbackHTTPServer
    /// The recorded exchanges the server answers from, as loaded from the fixtures folder.
    public let exchanges: [FixtureExchange]

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: server.baseURL) ?? URL(fileURLWithPath: "/") }

    /// Requests served so far.
    public var requestsServed: Int { server.stats.requestsServed }

    private init(server: LoopbackHTTPServer, exchanges: [FixtureExchange]) {
        self.server = server
        self.exchanges = exchanges
    }

    /// Loads every exchange under `directory` and starts serving them on an ephemeral port.
    public static func start(directory: String) async throws -> ReplayServer {
        try await start(exchanges: FixtureStore.load(directory: directory))
    }

    /// Starts serving `exchanges` on an ephemeral port.
    public static func start(exchanges: [FixtureExchange]) async throws -> ReplayServer {
        let index = ReplayIndex(exchanges)
        let box = OriginBox()
        let server = try await LoopbackHTTPServer.start { request in
            index.response(for: request, origin: box.origin)
        }
        box.set(server.baseURL)
        return ReplayServer(server: server, exchanges: exchanges)
    }

    /// Stops the server.
    public func shutdown() async throws {
        try await server.shutdown()
    }
}

/// The server's own origin, known only once it listens.
private final class OriginBox: Sendable {
    private let value = Mutex("")
    var origin: String { value.withLock { $0 } }
    func set(_ origin: String) { value.withLock { $0 = origin } }
}

/// Exchanges indexed by request target.
private struct ReplayIndex: Sendable {
    let exact: [String: FixtureExchange]
    let unordered: [String: FixtureExchange]

    init(_ exchanges: [FixtureExchange]) {
        var exact: [String: FixtureExchange] = [:]
        var unordered: [String: FixtureExchange] = [:]
        for exchange in exchanges {
            let key = "\(exchange.method) \(exchange.target)"
            if exact[key] == nil { exact[key] = exchange }
            let loose = "\(exchange.method) \(Self.normalized(exchange.target))"
            if unordered[loose] == nil { unordered[loose] = exchange }
        }
        self.exact = exact
        self.unordered = unordered
    }

    /// The target with its query parameters sorted and secret ones (`consumer_key`, …) dropped:
    /// recordings are scrubbed, so a live key must not prevent a match.
    static func normalized(_ target: String, dropping dropped: Set<String> = []) -> String {
        let parts = target.split(separator: "?", maxSplits: 1)
        guard parts.count == 2 else { return target }
        let kept = parts[1].split(separator: "&").filter { pair in
            let name = pair.split(separator: "=", maxSplits: 1).first.map { String($0).lowercased() } ?? ""
            return !Redaction.secretQueryParameters.contains(name) && !dropped.contains(name)
        }
        return kept.isEmpty ? String(parts[0]) : parts[0] + "?" + kept.sorted().joined(separator: "&")
    }

    /// Filters an incremental pull adds (`since`): a recording made without one answers with the
    /// unfiltered listing, a superset of the filtered one, which is what an API that ignores the
    /// filter would send.
    static let filterParameters: Set<String> = ["since"]

    func response(for request: LoopbackRequest, origin: String) -> LoopbackResponse {
        let method = request.method.uppercased() == "HEAD" ? "GET" : request.method.uppercased()
        guard
            let exchange = exact["\(method) \(request.target)"]
                ?? unordered["\(method) \(Self.normalized(request.target))"]
                ?? unordered["\(method) \(Self.normalized(request.target, dropping: Self.filterParameters))"]
        else {
            let message = #"{"message":"no recorded exchange for \#(method) \#(Redaction.redact(request.target))"}"#
            return LoopbackResponse(
                status: 404, headers: [(name: "Content-Type", value: "application/json")], body: Array(message.utf8))
        }
        let recordedOrigin = exchange.origin
        let headers = exchange.responseHeaders.compactMap { field -> (name: String, value: String)? in
            guard field.count == 2 else { return nil }
            let name = field[0].lowercased()
            if name == "content-length" || name == "content-encoding" || name == "transfer-encoding" { return nil }
            let value = recordedOrigin.isEmpty ? field[1] : field[1].replacingOccurrences(of: recordedOrigin, with: origin)
            return (name: field[0], value: value)
        }
        // Revalidation, as the recorded server would answer it: a matching `If-None-Match` → 304.
        if exchange.status == 200, let tags = request.header("If-None-Match"),
            let etag = headers.first(where: { $0.name.lowercased() == "etag" })?.value,
            Self.weakMatch(tags, etag)
        {
            return LoopbackResponse(
                status: 304, headers: headers.filter { $0.name.lowercased() != "content-type" }, body: [])
        }
        return LoopbackResponse(status: exchange.status, headers: headers, body: Array(exchange.body))
    }

    /// RFC 9110 weak comparison of an `If-None-Match` list with an entity tag.
    static func weakMatch(_ list: String, _ etag: String) -> Bool {
        func opaque(_ tag: Substring) -> Substring {
            let trimmed = tag.trimmingCharacters(in: .whitespaces)
            return Substring(trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed)
        }
        let wanted = opaque(Substring(etag))
        return list.split(separator: ",").contains { candidate in
            candidate.trimmingCharacters(in: .whitespaces) == "*" || opaque(candidate) == wanted
        }
    }
}
