import FeedConfig
import FeedCore
import FeedaggTesting
import Foundation
import Testing

/// The loader reports every error of a file, like a compiler (issue 14, item 8).
@Suite("Every error of a file in one run")
struct AllErrorsTests {
    @Test("errors in several feeds, defaults and settings are all reported, in file order, then counted")
    func everyErrorIsReported() throws {
        let yaml = """
            defaults:
              per_pag: 10
            feeds:
              - name: one
                source: github.repo
              - name: two
                source: github.repos
                org: acme
              - name: three
                source: github.repos
                org: acme
                colour: blue
            settings:
              timeout: 0

            """
        do {
            _ = try FeedsLoader.parse(text: yaml, path: "feeds.yaml", sources: TestSources.all, environment: [:])
            Issue.record("no error thrown")
        } catch let error as ConfigErrors {
            #expect(error.errors.map { $0.location?.line } == [2, 5, 12, 14])
            #expect(error.errors.map(\.message).first == "unknown key 'per_pag' in 'defaults'")
            #expect(String(describing: error).hasSuffix("\n4 errors"))
            #expect(String(describing: error).components(separatedBy: ": error: ").count == 5)
        }
    }

    @Test("the valid feeds are kept and the errors returned when collecting")
    func collectingKeepsValidFeeds() throws {
        let yaml = """
            feeds:
              - name: ok
                source: github.repos
                org: acme
              - name: bad
                source: github.members
              - name: also-ok
                source: github.members
                org: acme

            """
        let folder = try TemporaryFolder("feedconfig")
        defer { folder.remove() }
        let path = try folder.write("feeds.yaml", yaml).path
        let (document, errors) = try FeedsLoader.loadCollectingErrors(path: path, sources: TestSources.all, environment: [:])
        #expect(document.feeds.map(\.name) == ["ok", "also-ok"])
        #expect(errors.map(\.message) == ["feed 'bad' (github.members) is missing required parameter 'org'"])
    }

    @Test("a misspelt 'feeds' is one error, not also a missing 'feeds'")
    func misspeltFeedsKey() {
        let rendered = renderedError("feedz:\n  - name: x\n")
        #expect(rendered.hasPrefix("feeds.yaml:1:1: error: unknown top-level key 'feedz'"), "\(rendered)")
        #expect(!rendered.contains("missing top-level key"), "\(rendered)")
    }
}
