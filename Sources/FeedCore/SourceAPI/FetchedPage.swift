public import Foundation

/// A page's response, as handed to ``FeedSource/decodePage(_:)``.
public struct FetchedPage: Sendable {
    /// 1-based position of this page in the walk.
    public var number: Int
    /// The URL that was requested.
    public var url: URL
    /// The final response, after redirects; its body is already decompressed.
    public var response: HTTPResponse

    /// Creates a fetched page.
    public init(number: Int, url: URL, response: HTTPResponse) {
        self.number = number
        self.url = url
        self.response = response
    }
}
