import Foundation
import LoopbackServer

/// A loopback stand-in for GitHub's `GET /repos/apple/swift/releases`, serving the committed
/// sample (Fixtures/github-releases-sample.json) `per_page` at a time, `page` as asked, with
/// GitHub's `Link` header (`next`, `last`, `prev`, `first`) on the request's own origin: what the
/// scaffold end-to-end test records a generated `github.releases` fixture from.
final class ReleasesStandIn: Sendable {
    /// The sample every page is cut from.
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/github-releases-sample.json")
    static let path = "/repos/apple/swift/releases"

    private let server: LoopbackHTTPServer
    /// `http://127.0.0.1:PORT`.
    var baseURL: String { server.baseURL }

    private init(server: LoopbackHTTPServer) { self.server = server }

    /// Starts the stand-in on an ephemeral port.
    static func start() async throws -> ReleasesStandIn {
        let items = try (JSONSerialization.jsonObject(with: Data(contentsOf: sample)) as? [Any]) ?? []
        let encoded = try items.map { try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }
        let server = try await LoopbackHTTPServer.start { request in respond(to: request, items: encoded) }
        return ReleasesStandIn(server: server)
    }

    func shutdown() async throws { try await server.shutdown() }

    static func respond(to request: LoopbackRequest, items: [Data]) -> LoopbackResponse {
        let json = [(name: "Content-Type", value: "application/json; charset=utf-8")]
        guard request.method == "GET", request.path == path else {
            return LoopbackResponse(status: 404, headers: json, text: #"{"message":"Not Found"}"#)
        }
        let perPage = max(1, Int(request.queryValues["per_page"] ?? "") ?? 30)
        let page = max(1, Int(request.queryValues["page"] ?? "") ?? 1)
        let last = max(1, (items.count + perPage - 1) / perPage)
        let slice = items.dropFirst((page - 1) * perPage).prefix(perPage)
        let body = "[" + slice.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",") + "]"
        let origin = "http://" + (request.header("Host") ?? "127.0.0.1")
        func link(_ number: Int, _ rel: String) -> String { "<\(origin)\(path)?per_page=\(perPage)&page=\(number)>; rel=\"\(rel)\"" }
        var links: [String] = []
        if page < last { links += [link(page + 1, "next"), link(last, "last")] }
        if page > 1 { links += [link(page - 1, "prev"), link(1, "first")] }
        let headers = json + (links.isEmpty ? [] : [(name: "Link", value: links.joined(separator: ", "))])
        return LoopbackResponse(status: 200, headers: headers, text: body)
    }
}
