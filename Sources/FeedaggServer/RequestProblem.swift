import FeedaggKit
import Hummingbird

/// A request the server answers with an error status and `{"error": "…"}`: a bad query, an unknown
/// feed, an unavailable store. The message never names a file or a secret.
struct RequestProblem: Error, Sendable {
    /// The status to answer with.
    var status: HTTPResponse.Status
    /// What was wrong, for the client.
    var message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The JSON error response.
    var response: Response {
        let body = JSON.object([("error", .string(message))]).serialized() + "\n"
        return Response(
            status: status, headers: [.contentType: MediaTypes.json, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}

/// The `Content-Type` of each representation the server answers with: all of them UTF-8 text.
enum MediaTypes {
    static let json = utf8("application/json")
    static let atom = utf8("application/atom+xml")
    static let jsonFeed = utf8("application/feed+json")
    static let html = utf8("text/html")
    static let javascript = utf8("text/javascript")
    static let css = utf8("text/css")
    /// Prometheus' text exposition format, version 0.0.4.
    static let prometheus = utf8("text/plain; version=0.0.4")

    private static func utf8(_ type: String) -> String { type + "; charset=utf-8" }
}
