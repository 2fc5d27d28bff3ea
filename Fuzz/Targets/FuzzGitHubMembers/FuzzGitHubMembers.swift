import FeedCore
import Foundation
import FuzzSupport
import GitHubSource

// libFuzzer target: GitHubMembersSource.decodePage on the fuzz bytes as a 200 JSON body, then the source's
// pagination on the decoded page (no Link header here: see FuzzLinkHeader).

private let source = FuzzSupport.source(GitHubMembersSource.self, """
    feeds:
      - name: fuzz
        source: github.members
        org: acme
    """)
private let pageURL = URL(string: "https://api.github.com/orgs/acme/public_members?per_page=30")!

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzGitHubMembers(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let page = FuzzSupport.page(input, url: pageURL)
    let decoded: DecodedPage
    do {
        decoded = try source.decodePage(page)
    } catch let error as PageDecodeError {
        _ = error.description
        return 0
    } catch {
        preconditionFailure("decodePage threw a non-PageDecodeError: \(error)")
    }
    _ = FuzzSupport.consume(decoded)
    let outcome = PageOutcome(
        number: 1, url: pageURL, headers: page.response.headers, totals: decoded.totals,
        itemCount: decoded.items.count, pageSize: 30)
    _ = source.pagination.nextPage(after: outcome)
    _ = source.pagination.remainingPages(after: outcome)
    return 0
}

@main
enum Main {
    static func main() { FuzzSupport.run(fuzzGitHubMembers) }
}
