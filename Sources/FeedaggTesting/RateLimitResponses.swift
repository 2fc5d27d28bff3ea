public import LoopbackServer

/// A GitHub primary rate limit: 403, remaining 0, reset at `reset` (epoch seconds).
public func primaryLimit(reset: Int) -> LoopbackResponse {
    LoopbackResponse(
        status: 403,
        headers: [
            ("Content-Type", "application/json"), ("X-RateLimit-Limit", "5000"), ("X-RateLimit-Remaining", "0"),
            ("X-RateLimit-Reset", String(reset)),
        ],
        text: #"{"message":"API rate limit exceeded for 127.0.0.1.","documentation_url":"https://docs.github.com/rest"}"#)
}
