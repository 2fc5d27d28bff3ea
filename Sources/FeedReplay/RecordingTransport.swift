import Synchronization
public import FeedCore
public import Foundation

/// A transport decorator that records every exchange into a fixture folder.
public final class RecordingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let directory: URL
    private let counter = Counter()
    private let originRewrite: (from: String, to: String)?

    /// Records what `base` sends and receives into `directory` (created if needed).
    ///
    /// With `originRewrite`, every occurrence of the `from` origin in URLs, headers and bodies is
    /// written as `to`: recording from a stand-in server yields fixtures addressed to the real API.
    public init(recording base: any HTTPTransport, into directory: URL, originRewrite: (from: String, to: String)? = nil) {
        self.base = base
        self.directory = directory
        self.originRewrite = originRewrite
    }

    private func rewrite(_ text: String) -> String {
        guard let (from, to) = originRewrite else { return text }
        return text.replacingOccurrences(of: from, with: to)
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await base.send(request)
        let number = counter.next()
        var body = response.body
        if originRewrite != nil, let text = String(data: body, encoding: .utf8) {
            body = Data(rewrite(text).utf8)
        }
        let exchange = FixtureScrubber.scrub(
            FixtureExchange(
                method: request.method, url: rewrite(request.url.absoluteString),
                requestHeaders: request.headers.map { [$0.name, $0.value] }, status: response.status,
                responseHeaders: response.headers.filter { !Self.transportHeaders.contains($0.name.lowercased()) }
                    .map { [$0.name, rewrite($0.value)] },
                body: body))
        let slug = request.url.path.split(separator: "/").joined(separator: "-")
        let name = String(format: "%03d-%@.json", number, String(slug.prefix(60)))
        try FixtureStore.write(exchange, to: directory, name: name)
        return response
    }

    /// Hop-by-hop and encoding headers that no longer describe the (decoded) body.
    static let transportHeaders: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive",
    ]
}

/// A thread-safe counter: numbers the recorded exchanges in the order they finish.
private final class Counter: Sendable {
    private let state = Mutex(0)
    func next() -> Int {
        state.withLock { value in
            value += 1
            return value
        }
    }
}
