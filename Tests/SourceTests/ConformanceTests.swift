import FeedCore
import FeedaggTesting
import Foundation
import GitHubSource
import PhotosSource
import Synchronization
import Testing

// Every built-in source module against FeedSourceConformance, with its demo fixtures as sample
// pages. (The `http` source is declared in YAML mappings and tested in HTTPSourceTests.)

@Suite("Built-in sources follow the FeedSource rules (FeedSourceConformance)")
struct ConformanceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var type: any FeedSource.Type
        var keys: [String: String]
        var fixtures: String
        var testDescription: String { type.descriptor.typeName }
    }

    static let cases: [Case] = [
        Case(type: GitHubReposSource.self, keys: ["org": "facebook"], fixtures: "facebook-repos"),
        Case(type: GitHubMembersSource.self, keys: ["org": "xebia-france"], fixtures: "xebia-members"),
        Case(type: GitHubGistsSource.self, keys: [:], fixtures: "public-gists"),
        Case(type: GitHubGistsSource.self, keys: ["user": "xebia-france-dev0007"], fixtures: "member-gists"),
        Case(type: FiveHundredPxSource.self, keys: ["feature": "editors"], fixtures: "editors-photos"),
    ]

    @Test("conforms", arguments: cases)
    func conforms(_ conformanceCase: Case) throws {
        let directory = RepositoryPaths.fixtures.appendingPathComponent(conformanceCase.fixtures)
        let conformance = FeedSourceConformance(
            conformanceCase.type, parameters: conformanceCase.keys,
            samplePages: try FeedSourceConformance.pages(fromFixtures: directory.path),
            registeredTypeNames: DemoConfiguration.sourceTypes.map { $0.descriptor.typeName })
        #expect(conformance.violations() == [])
    }
}

// The checker itself must catch each broken rule: a conformer that breaks them all.

/// A source that breaks every rule FeedSourceConformance checks.
struct RuleBreakingSource: FeedSource {
    static let descriptor = SourceDescriptor(
        typeName: "Rule Breaker",
        summary: "breaks every rule",
        parameters: [
            ParameterSpec("org", .string, required: true, "declared required, never read"),
            ParameterSpec("per_page", .integer, "redefines a common key"),
            ParameterSpec("token", .secret, "put in the URL"),
        ],
        pagination: "link",
        defaultBaseURL: "https://api.example.com",
        defaultPageSize: 30,
        maxPageSize: 100)

    let firstPageURL: URL
    let token: String
    let counter = DecodeCounter()

    init(feed: FeedContext, parameters: FeedParameters) throws {
        _ = try parameters.string("undeclared")
        token = try parameters.secret("token")?.value ?? ""
        // Ignores base_url, and carries the secret in the path.
        firstPageURL = URL(string: "https://fixed.example.com/items/\(token)") ?? feed.baseURL
    }

    var pagination: any PaginationStrategy { LinkHeaderPagination() }
    var requestHeaders: HTTPHeaders { ["X-Api-Token": token] }

    func decodePage(_ page: FetchedPage) throws -> DecodedPage {
        let calls = counter.next()
        return DecodedPage(items: [FeedItem(id: "x:\(calls)", title: "call \(calls)"), FeedItem(id: "x:\(calls)", title: "again")])
    }
}

/// Shared mutable state: what a side-effecting `decodePage` uses.
final class DecodeCounter: Sendable {
    private let value = Mutex(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

@Suite("FeedSourceConformance reports each broken rule")
struct ConformanceCheckerTests {
    @Test("a rule-breaking source gets one violation per rule")
    func reportsViolations() throws {
        let url = try #require(URL(string: "https://api.example.com/items"))
        let page = FetchedPage.sample("[]", url: url, contentType: nil)
        let conformance = FeedSourceConformance(
            RuleBreakingSource.self, parameters: ["org": "x"], samplePages: [page],
            registeredTypeNames: ["Rule Breaker", "Rule Breaker"])
        let violations = conformance.violations()
        let expected = [
            "type name 'Rule Breaker' is not lowercase words",
            "is registered 2 times",
            "parameter 'per_page' redefines a key every feed accepts",
            "reads 'undeclared', which is not a declared parameter",
            "required parameter 'org' can be left out",
            "ignores base_url https://conformance-a.example/api/v3",
            "ignores base_url http://127.0.0.1:9/prefix",
            "decodePage has side effects",
            "duplicate item ids",
            "requestHeaders carries 'X-Api-Token'",
            "carries a secret outside a redacted query parameter",
            "printed description shows a secret",
        ]
        for fragment in expected {
            #expect(violations.contains { $0.contains(fragment) }, "missing violation '\(fragment)' in \(violations)")
        }
        #expect(throws: FeedSourceConformanceError.self) { try conformance.check() }
    }
}

/// Declares `feature` defaults to `popular` but falls back to `fresh` when the key is absent.
struct LyingDefaultSource: FeedSource {
    static let descriptor = SourceDescriptor(
        typeName: "lying.default", summary: "a default it does not keep",
        parameters: [ParameterSpec("feature", .string, default: "popular", "stream")],
        pagination: "link", defaultBaseURL: "https://api.example.com", defaultPageSize: 30, maxPageSize: 100)

    let firstPageURL: URL

    init(feed: FeedContext, parameters: FeedParameters) throws {
        firstPageURL = feed.endpoint("/items", query: [("feature", try parameters.string("feature") ?? "fresh")])
    }

    var pagination: any PaginationStrategy { LinkHeaderPagination() }
    func decodePage(_ page: FetchedPage) throws -> DecodedPage { DecodedPage(items: []) }
}

@Suite("FeedSourceConformance checks declared defaults")
struct ConformanceDefaultTests {
    @Test("a source that does not keep its declared default is reported")
    func lyingDefault() throws {
        let violations = FeedSourceConformance(LyingDefaultSource.self).violations()
        #expect(violations.contains { $0.contains("without 'feature' the source differs from one with its declared default 'popular'") },
            "\(violations)")
    }
}
