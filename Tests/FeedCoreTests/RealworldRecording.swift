import FeedCore
import FeedReplay
import FeedaggTesting
import Foundation
import Testing

/// `../shared/realworld` exchange files (`{exchanges: [{request, response}]}`), as fixtures.
enum RealworldRecording {
    /// Why tests that read it are skipped.
    static let missing = Comment(rawValue: RepositoryPaths.realworldUnavailableReason)

    /// The exchanges of `file` (relative to `../shared/realworld`) as ``FixtureExchange``s, in recorded order.
    ///
    /// Header values are kept as text (some recorders stored numbers); a JSON body is
    /// re-serialised, a text body kept as UTF-8, a null body is empty.
    static func exchanges(_ file: String) throws -> [FixtureExchange] {
        let url = RepositoryPaths.realworld.appendingPathComponent(file)
        let object = try #require(try RepositoryPaths.json(url) as? [String: Any], "\(file) is not an object")
        let exchanges = try #require(object["exchanges"] as? [[String: Any]], "\(file) has no exchanges")
        return try exchanges.map { exchange in
            let request = try #require(exchange["request"] as? [String: Any])
            let response = try #require(exchange["response"] as? [String: Any])
            let body: Data
            switch response["body"] {
            case nil, is NSNull: body = Data()
            case let text as String: body = Data(text.utf8)
            case let value?:
                body = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])
            }
            return FixtureExchange(
                method: (request["method"] as? String ?? "GET").uppercased(),
                url: try #require(request["url"] as? String),
                requestHeaders: headers(request["headers"]),
                status: try #require(response["status"] as? Int),
                responseHeaders: headers(response["headers"]),
                body: body)
        }
    }

    static func headers(_ value: Any?) -> [[String]] {
        (value as? [[Any]] ?? []).compactMap { pair in
            guard pair.count == 2, let name = pair[0] as? String else { return nil }
            return [name, pair[1] as? String ?? "\(pair[1])"]
        }
    }
}
