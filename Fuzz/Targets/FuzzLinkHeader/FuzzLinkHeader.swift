import FeedCore
import Foundation
import FuzzSupport

// libFuzzer target: the RFC 8288 Link header parser and what Link-header pagination does with
// its result. The input is one or more header field values separated by newlines.

private let pageURL = URL(string: "https://api.github.com/orgs/acme/repos?per_page=30")!
private let pagination = LinkHeaderPagination(pageSizeParameter: "per_page")

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzLinkHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: input, as: UTF8.self)
    let values = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let links = LinkHeader.parse(values)
    for link in links {
        _ = link.relations
        _ = link.parameter("title")
        _ = link.resolved(against: pageURL)
    }
    _ = LinkHeader.first("next", in: links)
    let outcome = PageOutcome(
        number: 1, url: pageURL, headers: HTTPHeaders(values.map { ("Link", $0) }), totals: nil,
        itemCount: 30, pageSize: 30)
    _ = pagination.nextPage(after: outcome)
    _ = pagination.remainingPages(after: outcome)
    return 0
}

@main
enum Main {
    static func main() { FuzzSupport.run(fuzzLinkHeader) }
}
