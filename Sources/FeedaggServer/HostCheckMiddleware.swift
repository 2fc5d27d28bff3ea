import Hummingbird

/// Refuses, with `421 Misdirected Request` and no data, every request whose `Host` does not name
/// this server (``ServedHosts``): the defence against DNS rebinding, where a web page on a name the
/// attacker controls resolves it to 127.0.0.1 and reads the answers as its own.
struct HostCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    let hosts: ServedHosts

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard hosts.names(host: request.head.authority) else {
            ServerMetrics.recordRefused(.host)
            return RequestProblem(
                .misdirectedRequest,
                "this server does not answer to that host name (feedagg serve --public-url names the ones it does)"
            ).response
        }
        return try await next(request, context)
    }
}
