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

/// The `Content-Type` of each representation the server answers with.
enum MediaTypes {
    static let json = "application/json; charset=utf-8"
    static let atom = "application/atom+xml; charset=utf-8"
    static let jsonFeed = "application/feed+json; charset=utf-8"
    static let html = "text/html; charset=utf-8"
    static let javascript = "text/javascript; charset=utf-8"
    static let css = "text/css; charset=utf-8"
    static let prometheus = "text/plain; version=0.0.4; charset=utf-8"
}
