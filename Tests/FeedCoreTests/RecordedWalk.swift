import FeedCore
import FeedReplay
import Foundation
import Testing

/// The pages a Link walk over recorded exchanges visits, found by following `rel="next"` in the
/// recording itself (independently of the engine).
struct RecordedWalk {
    /// The exchanges visited, in page order.
    var pages: [FixtureExchange]

    /// Follows `next` from the first GET whose body is a JSON array.
    init(_ exchanges: [FixtureExchange]) throws {
        func isList(_ exchange: FixtureExchange) -> Bool {
            exchange.method == "GET" && exchange.status == 200
                && (try? JSONSerialization.jsonObject(with: exchange.body)) is [Any]
        }
        var current = try #require(exchanges.first(where: isList), "no list response in the recording")
        var pages = [current]
        while let link = LinkHeader.first("next", in: LinkHeader.parse(Self.values("Link", current.responseHeaders))),
            let next = link.resolved(against: URL(string: current.url))
        {
            let target = FixtureExchange(url: next.absoluteString, status: 0, responseHeaders: [], body: Data()).target
            let found = try #require(
                exchanges.first { $0.method == "GET" && Self.sameTarget($0.target, target) },
                "the recording has no exchange for its own next link \(next)")
            #expect(!pages.contains(found), "the recording's next links loop at \(target)")
            if pages.contains(found) { break }
            pages.append(found)
            current = found
        }
        self.pages = pages
    }

    static func values(_ name: String, _ headers: [[String]]) -> [String] {
        headers.filter { $0.count == 2 && $0[0].lowercased() == name.lowercased() }.map { $0[1] }
    }

    /// Targets equal, or equal with the query parameters in any order (as replay matches).
    static func sameTarget(_ a: String, _ b: String) -> Bool {
        func normalized(_ target: String) -> String {
            let parts = target.split(separator: "?", maxSplits: 1)
            guard parts.count == 2 else { return target }
            return parts[0] + "?" + parts[1].split(separator: "&").sorted().joined(separator: "&")
        }
        return a == b || normalized(a) == normalized(b)
    }

    /// The `path?query` of page 1.
    var firstTarget: String { pages[0].target }

    /// Every element of every page that has an id at `idPath`, as `test.list:<id>`, in page order.
    func ids(idPath: [String]) throws -> [String] {
        try pages.flatMap { page in
            let elements = try #require(try JSONSerialization.jsonObject(with: page.body) as? [Any])
            return elements.compactMap { RecordedListSource.identity(of: $0, at: idPath) }
                .map { "\(RecordedListSource.descriptor.typeName):\($0)" }
        }
    }
}
