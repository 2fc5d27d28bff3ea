import FeedaggTesting
import Foundation
import Testing

// `feedagg-scaffold --api` and `--sample` on a scratch package (no build): what the draft reads
// from a sample, and what it refuses. The end-to-end test builds and runs what it generates.

@Suite("new-source --api and --sample: the drafted source, fixture and refusals")
struct ScaffoldSampleTests {
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/github-releases-sample.json")

    @Test("--sample drafts typed, optional and nested fields, and the fixture holds the sample's items")
    func drafts() async throws {
        let package = try ScaffoldCommandTests.ScratchPackage()
        defer { package.remove() }
        let output = try await package.scaffold(
            ["--name", "GitHubReleases", "--type-name", "github.releases", "--api", "github", "--sample", Self.sample.path])
        #expect(output.status == 0, "\(output.summary)")
        let source = try package.text("Sources/GitHubReleasesSource/GitHubReleasesSource.swift")
        for line in [
            "    var id: Int", "    var tagName: String", "    var name: String?", "    var prerelease: Bool",
            "    var mentionsCount: Int?", "    var author: GitHubReleasesAuthorDTO", "    var body: String?",
            "title: ItemText.nonEmpty(dto.name) ?? ItemText.nonEmpty(dto.tagName)", "//   assets: an array, not drafted",
        ] {
            #expect(source.contains(line), "no `\(line)` in:\n\(source)")
        }
        let folder = "Tests/GitHubReleasesSourceTests/Fixtures/github-releases-example"
        let feed = try package.text("\(folder)/feed.json")
        #expect(feed.contains(#""per_page" : "3""#) && feed.contains(#""owner" : "apple""#), "\(feed)")
        let first = try package.text("\(folder)/001-repos-apple-swift-releases.json")
        #expect(first.contains("https://api.github.com/repos/apple/swift/releases?per_page=3"))
        #expect(first.contains("swift-6.1-RELEASE") && first.contains(#"rel=\"last\""#), "\(first)")
    }

    @Test("an unknown --api, --api with page numbers and a missing --sample are refused, writing nothing")
    func refusals() async throws {
        let package = try ScaffoldCommandTests.ScratchPackage()
        defer { package.remove() }
        let manifest = try package.text("Package.swift")
        let cases: [([String], String)] = [
            (["--name", "Foo", "--api", "gitlab"], "--api must be one of github, found 'gitlab'"),
            (["--name", "Foo", "--api", "github", "--pagination", "page"], "leave out --pagination page"),
            (["--name", "Foo", "--sample", "/nonexistent/sample.json"], "--sample /nonexistent/sample.json: no such file"),
        ]
        for (arguments, message) in cases {
            let output = try await package.scaffold(arguments)
            #expect(output.status == 2, "\(arguments): \(output.summary)")
            #expect(output.stderr.contains(message), "\(arguments): \(output.summary)")
        }
        #expect(try package.text("Package.swift") == manifest)
        #expect(!package.exists("Sources/FooSource"))
    }
}
