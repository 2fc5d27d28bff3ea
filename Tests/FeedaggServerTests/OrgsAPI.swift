import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization

/// A GitHub-like API on loopback whose repositories can change while feedagg serves them:
/// `/orgs/{org}/repos?per_page=N&page=P`, Link-paginated, newest first, each page with an `ETag`
/// of its body and `304 Not Modified` for a matching `If-None-Match` (GitHub's behaviour).
/// Requests for pages at or after `gatePage` wait until ``gate`` opens. Every answer is logged.
final class OrgsAPI: Sendable {
    /// One request and how it was answered.
    struct Served: Sendable {
        var org: String
        var page: Int
        var status: Int
        /// When the request was answered.
        var at = Date()
    }

    private struct State {
        var repos: [String: Int]
        var renamed: [String: String] = [:]
        /// Orgs answered with a rate limit: its length, and its reset once first answered.
        var limits: [String: (length: TimeInterval, reset: Date?)] = [:]
        var log: [Served] = []
    }

    private let state: Mutex<State>
    let gatePage: Int?
    let gate = Gate()

    /// `repos`: how many repositories each org has.
    init(_ repos: [String: Int], gatePage: Int? = nil) {
        state = Mutex(State(repos: repos))
        self.gatePage = gatePage
    }

    /// Renames repository 1 of `org` and makes it the most recently updated.
    func rename(_ org: String, to name: String) {
        state.withLock { $0.renamed[org] = name }
    }

    /// Answers every request for `org` with GitHub's rate-limit 403 (`X-RateLimit-Remaining: 0`)
    /// until its reset, `X-RateLimit-Reset`, `length` seconds after the first such answer (not after this
    /// call: a loaded machine may take long to start the client, and the limit must still be ahead).
    func rateLimit(_ org: String, for length: TimeInterval) {
        state.withLock { $0.limits[org] = (length, nil) }
    }

    /// The reset time sent for `org`'s rate limit, once it has been answered.
    func rateLimitReset(_ org: String) -> Date? {
        state.withLock { $0.limits[org]?.reset }
    }

    /// Every request so far.
    var served: [Served] { state.withLock { $0.log } }

    func respond(to request: LoopbackRequest) async -> LoopbackResponse {
        let json = [(name: "Content-Type", value: "application/json")]
        let parts = request.path.split(separator: "/")
        guard parts.count == 3, parts[0] == "orgs", parts[2] == "repos",
            let count = state.withLock({ $0.repos[String(parts[1])] })
        else {
            if parts.count == 3 { state.withLock { $0.log.append(Served(org: String(parts[1]), page: 1, status: 404)) } }
            return LoopbackResponse(status: 404, headers: json, text: #"{"message":"Not Found"}"#)
        }
        let org = String(parts[1])
        let limitReset = state.withLock { state -> Date? in
            guard let limit = state.limits[org] else { return nil }
            // After the reset the org is answered again, as GitHub does.
            if let reset = limit.reset, reset <= Date() { return nil }
            let reset = limit.reset ?? Date().addingTimeInterval(limit.length)
            state.limits[org] = (limit.length, reset)
            state.log.append(Served(org: org, page: 0, status: 403))
            return reset
        }
        if let until = limitReset {
            return LoopbackResponse(
                status: 403,
                headers: json + [
                    (name: "X-RateLimit-Limit", value: "60"), (name: "X-RateLimit-Remaining", value: "0"),
                    (name: "X-RateLimit-Reset", value: String(Int(until.timeIntervalSince1970))),
                ],
                text: #"{"message":"API rate limit exceeded"}"#)
        }
        let perPage = request.queryValues["per_page"].flatMap(Int.init) ?? 30
        let page = request.queryValues["page"].flatMap(Int.init) ?? 1
        if let gatePage, page >= gatePage { await gate.wait() }
        let (renamed, orgIndex) = state.withLock { ($0.renamed[org], $0.repos.keys.sorted().firstIndex(of: org) ?? 0) }
        let last = max(1, (count + perPage - 1) / perPage)
        let ids = Array(1...max(1, count)).prefix(count).dropFirst((page - 1) * perPage).prefix(perPage)
        let body = "[" + ids.map { id in
            let name = id == 1 ? (renamed ?? "\(org)-repo-1") : "\(org)-repo-\(id)"
            // Newest first: repository 1 is the most recently updated, later when renamed.
            let updated = ISO8601.string(from: Date(timeIntervalSince1970: Double(1_700_000_000 - id * 3600 + (id == 1 && renamed != nil ? 1800 : 0))))
            return #"{"id":\#((orgIndex + 1) * 100_000 + id),"name":"\#(name)","html_url":"https://github.com/\#(org)/\#(name)","#
                + #""owner":{"login":"\#(org)","html_url":"https://github.com/\#(org)"},"created_at":"2020-01-01T00:00:00Z","updated_at":"\#(updated)"}"#
        }.joined(separator: ",") + "]"
        var headers = json
        let tag = "\"\(Self.digest(body))\""
        headers.append((name: "ETag", value: tag))
        if page < last {
            let links = [
                #"</orgs/\#(org)/repos?per_page=\#(perPage)&page=\#(page + 1)>; rel="next""#,
                #"</orgs/\#(org)/repos?per_page=\#(perPage)&page=\#(last)>; rel="last""#,
            ]
            headers.append((name: "Link", value: links.joined(separator: ", ")))
        }
        let notModified = request.headerValues("If-None-Match").contains { $0.contains(tag) }
        state.withLock { $0.log.append(Served(org: org, page: page, status: notModified ? 304 : 200)) }
        if notModified { return LoopbackResponse(status: 304, headers: [(name: "ETag", value: tag)]) }
        return LoopbackResponse(headers: headers, text: body)
    }

    /// Serves on loopback while `body` runs; the gate is opened before the server stops.
    func serve<T>(_ body: (URL) async throws -> T) async throws -> T {
        let server = try await LoopbackHTTPServer.start { request in await self.respond(to: request) }
        do {
            let result = try await body(URL(string: server.baseURL)!)
            gate.open()
            try await server.shutdown()
            return result
        } catch {
            gate.open()
            try? await server.shutdown()
            throw error
        }
    }

    /// FNV-1a of `text`, hexadecimal.
    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

