import FeedCore
import Foundation
import FuzzSupport
import GitHubSource

// libFuzzer target: GitHubReposSource.decodePage on the fuzz bytes as a 200 JSON body, then the source's
// pagination on the decoded page (no Link header here: see FuzzLinkHeader).

private let source = FuzzSupport.source(GitHubReposSource.self, """
    feeds:
      - name: fuzz
        source: github.repos
        org: acme
    """)
private let pageURL = URL(string: "https://api.github.com/orgs/acme/repos?per_page=30")!

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzGitHubRepos(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzSupport.decodeAndPaginate(source, data, size, url: pageURL, pageSize: 30)
}

@main
enum Main {
    static func main() { FuzzSupport.run(fuzzGitHubRepos) }
}
