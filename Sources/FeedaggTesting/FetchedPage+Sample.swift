public import FeedCore
public import Foundation

extension FetchedPage {
    /// A page as the engine hands it to ``FeedSource/decodePage(_:)``: `body` answered with
    /// `status` to a request for `url`.
    ///
    /// - Parameters:
    ///   - number: The page's 1-based position in the walk.
    ///   - contentType: The `Content-Type` header; `nil` sends none.
    public static func sample(
        _ body: Data, url: URL, number: Int = 1, status: Int = 200, contentType: String? = "application/json"
    ) -> FetchedPage {
        let headers: HTTPHeaders = contentType.map { ["Content-Type": $0] } ?? [:]
        return FetchedPage(
            number: number, url: url, response: HTTPResponse(status: status, headers: headers, body: body, url: url))
    }

    /// A page whose body is the UTF-8 of `body` (see the `Data` variant).
    public static func sample(
        _ body: String, url: URL, number: Int = 1, status: Int = 200, contentType: String? = "application/json"
    ) -> FetchedPage {
        sample(Data(body.utf8), url: url, number: number, status: status, contentType: contentType)
    }
}
