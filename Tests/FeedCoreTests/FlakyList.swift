import FeedaggTesting
import LoopbackServer
import Foundation
import Synchronization
import Testing

/// A Link-paginated list of `pages` pages of 3 items whose answers a test scripts per (page, try).
final class FlakyList: Sendable {
    let pages: Int
    /// (page, try number) → the response to give instead of the page; `nil` → the page.
    let script: @Sendable (_ page: Int, _ attempt: Int) -> LoopbackResponse?
    private let tries = Mutex<[Int: Int]>([:])

    init(pages: Int, script: @escaping @Sendable (Int, Int) -> LoopbackResponse?) {
        self.pages = pages
        self.script = script
    }

    /// Requests received per page.
    var attempts: [Int: Int] { tries.withLock { $0 } }
    var totalRequests: Int { attempts.values.reduce(0, +) }

    /// Serves the list on a loopback server of its own; returns the server and page 1's URL.
    func serve() async throws -> (server: LoopbackHTTPServer, url: URL) {
        let base = Mutex("")
        let server = try await LoopbackHTTPServer.start { request in self.handle(request, base: base.withLock { $0 }) }
        base.withLock { $0 = server.baseURL }
        return (server, try #require(URL(string: "\(server.baseURL)/list")))
    }

    func handle(_ request: LoopbackRequest, base: String) -> LoopbackResponse {
        let page = request.query.flatMap { query in
            query.split(separator: "&").first { $0.hasPrefix("page=") }.flatMap { Int($0.dropFirst(5)) }
        } ?? 1
        let attempt = tries.withLock { tries -> Int in
            tries[page, default: 0] += 1
            return tries[page, default: 0]
        }
        if let scripted = script(page, attempt) { return scripted }
        let items = (1...3).map { #"{"id":\#(page * 100 + $0)}"# }.joined(separator: ",")
        var links = ["<\(base)/list?page=\(pages)>; rel=\"last\""]
        if page < pages { links.insert("<\(base)/list?page=\(page + 1)>; rel=\"next\"", at: 0) }
        return LoopbackResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("Link", links.joined(separator: ", "))],
            text: "[\(items)]")
    }
}
