import Hummingbird
import HTTPTypes

/// Bounds what requests can make the server do: a URL of at most ``maximumURLBytes`` (414), at
/// most ``AdmissionGate/limit`` requests handled at once (the next ones wait up to ``patience``,
/// then get `503` with `Retry-After`). `/healthz` skips the line, so a health check answers while
/// the server is saturated.
///
/// Header sizes are bounded before this runs, by the HTTP decoder, and a connection idle for
/// ``FeedaggServer/idleTimeout`` is closed; the time one request may take is bounded by the
/// deadline of its store reads (``StreamReader/readTimeout``).
struct AdmissionMiddleware<Context: RequestContext>: RouterMiddleware {
    let gate: AdmissionGate
    /// How long a request may wait for a slot.
    var patience: Duration = .seconds(2)

    /// The longest request target accepted, in bytes.
    static var maximumURLBytes: Int { 4096 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.head.path.map({ $0.utf8.count <= Self.maximumURLBytes }) ?? true else {
            ServerMetrics.recordRefused(.tooLarge)
            return RequestProblem(.uriTooLong, "the request's URL is longer than \(Self.maximumURLBytes) bytes").response
        }
        if request.uri.path == "/healthz" { return try await next(request, context) }
        guard await gate.enter(waitingAtMost: patience) else {
            ServerMetrics.recordRefused(.busy)
            var response = RequestProblem(.serviceUnavailable, "the server is busy; try again in a second").response
            response.headers[.retryAfter] = "1"
            return response
        }
        defer { gate.leave() }
        return try await next(request, context)
    }
}
