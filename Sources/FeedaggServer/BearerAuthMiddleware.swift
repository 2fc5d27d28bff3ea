import FeedaggKit
import Hummingbird

/// Refuses every request without `Authorization: Bearer <token>` (`--auth-token-file`) with 401.
/// The answer says only that a token is needed; it never echoes what was sent.
///
/// A request that sent a wrong token is logged on standard error with the client's address; an
/// address that sent ``AuthFailureLimiter/limit`` wrong tokens within a minute is answered `429`
/// with `Retry-After` (without the token being compared) until that minute has passed.
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = ServeRequestContext
    let token: AuthToken
    let failures: AuthFailureLimiter
    let console: Console

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let address = context.clientAddress
        if let wait = failures.retryAfter(address) {
            ServerMetrics.recordRefused(.authThrottled)
            var response = RequestProblem(.tooManyRequests, "too many wrong tokens from this address; try again later").response
            response.headers[.retryAfter] = String(wait)
            return response
        }
        guard token.accepts(authorization: request.headers[.authorization]) else {
            if request.headers[.authorization] != nil {
                let count = failures.recordFailure(address)
                console.error(
                    "feedagg serve: wrong bearer token from \(address) for \(request.method) "
                        + TerminalText.sanitized(String(request.uri.path.prefix(200))) + " "
                        + "(\(count) in the last minute)")
            }
            var response = RequestProblem(.unauthorized, "this server needs Authorization: Bearer <token>").response
            response.headers[.wwwAuthenticate] = "Bearer realm=\"feedagg\""
            return response
        }
        return try await next(request, context)
    }
}
