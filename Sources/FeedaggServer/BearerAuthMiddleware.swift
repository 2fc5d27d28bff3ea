import Hummingbird

/// Refuses every request without `Authorization: Bearer <token>` (`--auth-token-file`) with 401.
/// The answer says only that a token is needed; it never echoes what was sent.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: AuthToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard token.accepts(authorization: request.headers[.authorization]) else {
            var response = RequestProblem(.unauthorized, "this server needs Authorization: Bearer <token>").response
            response.headers[.wwwAuthenticate] = "Bearer realm=\"feedagg\""
            return response
        }
        return try await next(request, context)
    }
}
