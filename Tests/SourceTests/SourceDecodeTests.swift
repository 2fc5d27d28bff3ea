import FeedCore
import Foundation
import GitHubSource
import PhotosSource
import Testing

// Pure decode and configuration tests for the built-in source modules: no network, no engine.
// Real responses are read in place from ../shared/realworld (beside the project); tests that
// need them are skipped, with a message, when that folder is absent.

// MARK: - Helpers

/// The shared real-world recordings, read in place.
enum Realworld {
    /// `<project>/../shared/realworld`, located from this file.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // SourceTests
        .appendingPathComponent("../../../shared/realworld", isDirectory: true)
        .standardizedFileURL

    /// Whether the recordings are present.
    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("README.md").path)
    }

    /// Why a test was skipped.
    static let missing: Comment = "needs ../shared/realworld beside the project (real recorded API responses)"

    /// One `github-samples/` file: its body re-serialised, the recorded item count and request URL.
    static func githubSample(_ name: String) throws -> (body: Data, itemCount: Int, url: URL) {
        let data = try Data(contentsOf: root.appendingPathComponent("github-samples/\(name)"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let body = try #require(object["body"])
        let count = try #require(object["item_count"] as? Int)
        let request = try #require(object["request"] as? [String: Any])
        let url = try #require((request["url"] as? String).flatMap(URL.init(string:)))
        return (try JSONSerialization.data(withJSONObject: body), count, url)
    }

    /// A `500px/mypum-GraphQL-500px/` file, byte for byte.
    static func fiveHundredPx(_ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent("500px/mypum-GraphQL-500px/\(name)"))
    }
}

/// A page as the engine would hand it to `decodePage`.
func page(_ body: String, url: String = "https://api.github.com/x", contentType: String = "application/json; charset=utf-8")
    throws -> FetchedPage
{
    try page(Data(body.utf8), url: url, contentType: contentType)
}

/// A page as the engine would hand it to `decodePage`.
func page(_ body: Data, url: String = "https://api.github.com/x", contentType: String = "application/json; charset=utf-8")
    throws -> FetchedPage
{
    let url = try #require(URL(string: url))
    return FetchedPage(
        number: 1, url: url,
        response: HTTPResponse(status: 200, headers: ["Content-Type": contentType], body: body, url: url))
}

/// A hand-built feeds.yaml entry with real line/column locations:
///
/// ```yaml
/// feeds:
///   - name: <name>
///     source: <source>
///     key: value        # one line per pair
/// ```
struct FeedYAML {
    let name: String
    let source: String
    let pairs: [(String, String)]
    let file: SourceFile

    init(name: String = "x", source: String, _ pairs: [(String, String)]) {
        self.name = name
        self.source = source
        self.pairs = pairs
        let lines = ["feeds:", "  - name: \(name)", "    source: \(source)"] + pairs.map { "    \($0.0): \($0.1)" }
        file = SourceFile(path: "feeds.yaml", text: lines.joined(separator: "\n") + "\n")
    }

    func scalar(_ text: String, line: Int, column: Int) -> ConfigNode {
        ConfigNode(.scalar(text, plain: true), at: SourceLocation(file: file, line: line, column: column))
    }

    /// The feed's mapping node (it starts at line 2, column 5).
    var node: ConfigNode {
        var entries = [
            (key: scalar("name", line: 2, column: 5), value: scalar(name, line: 2, column: 11)),
            (key: scalar("source", line: 3, column: 5), value: scalar(source, line: 3, column: 13)),
        ]
        for (offset, (key, value)) in pairs.enumerated() {
            let line = 4 + offset
            entries.append((key: scalar(key, line: line, column: 5), value: scalar(value, line: line, column: 7 + key.count)))
        }
        return ConfigNode(.mapping(entries), at: SourceLocation(file: file, line: 2, column: 5))
    }

    var parameters: FeedParameters {
        FeedParameters(node: node, defaults: nil, feedName: name, sourceType: source)
    }
}

/// A source built from `pairs` the way the engine builds it.
func make<S: FeedSource>(_ type: S.Type, _ pairs: [(String, String)], baseURL: String? = nil, pageSize: Int? = nil)
    throws -> S
{
    let yaml = FeedYAML(source: S.descriptor.typeName, pairs)
    let base = try #require(URL(string: baseURL ?? S.descriptor.defaultBaseURL))
    let context = FeedContext(name: yaml.name, baseURL: base, pageSize: pageSize ?? S.descriptor.defaultPageSize)
    return try S(feed: context, parameters: yaml.parameters)
}

/// The error `body` throws, as `E`.
func error<E: Error>(_ type: E.Type, _ body: () throws -> Void) throws -> E {
    do {
        try body()
    } catch let error as E {
        return error
    }
    Issue.record("expected \(E.self) to be thrown")
    throw CancellationError()
}

/// A ghserver-style repository (`_repo` in bench/ghserver.py), reduced to the fields that matter.
func repoJSON(
    id: Int = 10_270_250, name: String = "\"swift\"", language: String = "\"Swift\"", forks: Int = 1207,
    watchers: Int = 6961, issues: Int = 252
) -> String {
    """
    {"id":\(id),"node_id":"MDEwOlJlcG9zaXRvcnkxMDI3MDI1MA","name":\(name),"full_name":"apple/swift",
     "private":false,"owner":{"login":"apple","id":10639145,
       "avatar_url":"https://avatars.githubusercontent.com/u/10639145?v=4","html_url":"https://github.com/apple",
       "type":"Organization","site_admin":false},
     "html_url":"https://github.com/apple/swift","description":"The Swift Programming Language","fork":false,
     "created_at":"2015-10-23T21:15:07Z","updated_at":"2024-01-31T12:00:00Z","pushed_at":"2024-01-31T11:59:00Z",
     "stargazers_count":\(watchers),"watchers_count":\(watchers),"language":\(language),"forks_count":\(forks),
     "open_issues_count":\(issues),"forks":\(forks),"open_issues":\(issues),"watchers":\(watchers),
     "license":null,"topics":["swift"],"default_branch":"main"}
    """
}

// MARK: - github.repos

@Suite("github.repos")
struct GitHubReposDecodeTests {
    @Test("summary is exactly '<language> - N forks - N watchers - N open issues'")
    func summaryFormat() throws {
        let source = try make(GitHubReposSource.self, [("org", "apple")])
        let decoded = try source.decodePage(try page("[\(repoJSON())]"))
        let item = try #require(decoded.items.first)
        #expect(decoded.items.count == 1)
        #expect(item.id == "github.repos:10270250")
        #expect(item.title == "swift")
        #expect(item.summary == "Swift - 1207 forks - 6961 watchers - 252 open issues")
        #expect(item.url == "https://github.com/apple/swift")
        #expect(item.author == FeedAuthor(
            name: "apple", url: "https://github.com/apple",
            avatarURL: "https://avatars.githubusercontent.com/u/10639145?v=4"))
        #expect(item.imageURL == "https://avatars.githubusercontent.com/u/10639145?v=4")
        #expect(item.published == ISO8601.date(from: "2015-10-23T21:15:07Z"))
        #expect(item.updated == ISO8601.date(from: "2024-01-31T12:00:00Z"))
        #expect(item.raw.map { String(decoding: $0, as: UTF8.self) } == repoJSON())
        #expect(decoded.totals == nil)
    }

    @Test("a null language reads 'No language'")
    func nullLanguage() throws {
        let source = try make(GitHubReposSource.self, [("org", "apple")])
        let item = try #require(try source.decodePage(try page("[\(repoJSON(language: "null", forks: 0, watchers: 1, issues: 0))]")).items.first)
        #expect(item.summary == "No language - 0 forks - 1 watchers - 0 open issues")
    }

    @Test("a null name is an error at $[i].name")
    func nullName() throws {
        let source = try make(GitHubReposSource.self, [("org", "apple")])
        let body = "[\(repoJSON(id: 1)), \(repoJSON(id: 2, name: "null"))]"
        let failure = try error(PageDecodeError.self) { _ = try source.decodePage(try page(body)) }
        #expect(failure.path == "$[1].name")
        #expect(failure.message == "expected a string, found null")
        let first = try error(PageDecodeError.self) { _ = try source.decodePage(try page("[\(repoJSON(name: "null"))]")) }
        #expect(first.path == "$[0].name")
    }

    @Test("a malformed timestamp is an error at its path")
    func badTimestamp() throws {
        let source = try make(GitHubReposSource.self, [("org", "apple")])
        let body = "[\(repoJSON().replacingOccurrences(of: "2015-10-23T21:15:07Z", with: "last tuesday"))]"
        let failure = try error(PageDecodeError.self) { _ = try source.decodePage(try page(body)) }
        #expect(failure.path == "$[0].created_at")
    }

    @Test("an HTML page served with status 200 is an error, not zero items")
    func htmlBody() throws {
        let source = try make(GitHubReposSource.self, [("org", "apple")])
        let html = "<!DOCTYPE html><html><body>Unicorn! This page is taking too long to load.</body></html>"
        let typed = try error(PageDecodeError.self) { _ = try source.decodePage(try page(html, contentType: "text/html")) }
        #expect(typed.path == "$")
        #expect(typed.message.contains("text/html"))
        let untyped = try error(PageDecodeError.self) { _ = try source.decodePage(try page(html, contentType: "application/json")) }
        #expect(untyped.path == "$")
        #expect(untyped.message.contains("markup"))
    }

    @Test("an object body (e.g. an error document) is an error at $")
    func objectBody() throws {
        let source = try make(GitHubReposSource.self, [("org", "apple")])
        let failure = try error(PageDecodeError.self) {
            _ = try source.decodePage(try page(#"{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}"#))
        }
        #expect(failure.path == "$")
        #expect(failure.message.contains("array"))
    }

    @Test("an empty array is a page without items")
    func emptyArray() throws {
        let source = try make(GitHubReposSource.self, [("user", "octocat")])
        #expect(try source.decodePage(try page("[]")).items.isEmpty)
    }

    @Test("ordering is newest first only for sort: updated, descending")
    func ordering() throws {
        #expect(try make(GitHubReposSource.self, [("org", "a")]).ordering == .unordered)
        #expect(try make(GitHubReposSource.self, [("org", "a"), ("sort", "updated")]).ordering == .newestFirst)
        #expect(try make(GitHubReposSource.self, [("org", "a"), ("sort", "updated"), ("direction", "desc")]).ordering == .newestFirst)
        #expect(try make(GitHubReposSource.self, [("org", "a"), ("sort", "updated"), ("direction", "asc")]).ordering == .unordered)
        #expect(try make(GitHubReposSource.self, [("org", "a"), ("sort", "created")]).ordering == .unordered)
        #expect(try make(GitHubReposSource.self, [("org", "a"), ("sort", "pushed")]).ordering == .unordered)
        #expect(try make(GitHubReposSource.self, [("user", "a"), ("sort", "full_name")]).ordering == .unordered)
    }
}

// MARK: - Configuration and endpoints

@Suite("GitHub and 500px parameters")
struct SourceParameterTests {
    @Test("github.repos without org or user: located at the feed mapping")
    func neitherOrgNorUser() throws {
        let yaml = FeedYAML(name: "swift-repos", source: "github.repos", [("type", "public")])
        let context = FeedContext(name: "swift-repos", baseURL: try #require(URL(string: "https://api.github.com")), pageSize: 30)
        let failure = try error(ConfigError.self) { _ = try GitHubReposSource(feed: context, parameters: yaml.parameters) }
        #expect(failure.message == "feed 'swift-repos' (github.repos) needs exactly one of 'org' or 'user'")
        #expect(failure.location?.line == 2)
        #expect(failure.location?.column == 5)
        #expect(failure.description.hasPrefix("feeds.yaml:2:5: error: feed 'swift-repos' (github.repos) needs exactly one"))
        #expect(failure.description.hasSuffix("\n    - name: swift-repos\n      ^"))
    }

    @Test("github.repos with both org and user: located at the feed mapping")
    func bothOrgAndUser() throws {
        let failure = try error(ConfigError.self) {
            _ = try make(GitHubReposSource.self, [("org", "apple"), ("user", "octocat")])
        }
        #expect(failure.message == "feed 'x' (github.repos) needs exactly one of 'org' or 'user'")
        #expect(failure.location?.line == 2)
    }

    @Test("github.members without org: the loader's missing-parameter error, located")
    func membersMissingOrg() throws {
        let failure = try error(ConfigError.self) { _ = try make(GitHubMembersSource.self, []) }
        #expect(failure.message == "feed 'x' (github.members) is missing required parameter 'org'")
        #expect(failure.location?.line == 2)
        #expect(failure.location?.column == 5)
    }

    @Test("an unknown repo type or sort is located at its value, with a suggestion")
    func badChoice() throws {
        let type = try error(ConfigError.self) { _ = try make(GitHubReposSource.self, [("org", "a"), ("type", "froks")]) }
        #expect(type.location?.line == 5)
        #expect(type.location?.column == 11)
        #expect(type.message.hasPrefix("'type' must be one of all, public, private, forks, sources, member, internal"))
        #expect(type.notes == ["help: did you mean 'forks'?"])
        let userType = try error(ConfigError.self) { _ = try make(GitHubReposSource.self, [("user", "a"), ("type", "sources")]) }
        #expect(userType.message == "'type' must be one of all, owner, member for a user, found 'sources'")
        let sort = try error(ConfigError.self) { _ = try make(GitHubReposSource.self, [("org", "a"), ("sort", "stars")]) }
        #expect(sort.location?.line == 5)
    }

    @Test("endpoints honour base_url, including a GitHub Enterprise /api/v3 prefix")
    func endpoints() throws {
        let ghe = "https://ghe.example.com/api/v3"
        #expect(try make(GitHubReposSource.self, [("org", "apple")]).firstPageURL.absoluteString
            == "https://api.github.com/orgs/apple/repos")
        #expect(try make(GitHubReposSource.self, [("org", "my org/x")], baseURL: ghe).firstPageURL.absoluteString
            == "https://ghe.example.com/api/v3/orgs/my%20org%2Fx/repos")
        #expect(try make(GitHubReposSource.self, [("user", "octocat"), ("type", "owner"), ("sort", "updated")], baseURL: ghe + "/")
            .firstPageURL.absoluteString == "https://ghe.example.com/api/v3/users/octocat/repos?type=owner&sort=updated")
        #expect(try make(GitHubMembersSource.self, [("org", "swiftlang")], baseURL: ghe).firstPageURL.absoluteString
            == "https://ghe.example.com/api/v3/orgs/swiftlang/public_members")
        #expect(try make(GitHubGistsSource.self, [], baseURL: ghe).firstPageURL.absoluteString
            == "https://ghe.example.com/api/v3/gists/public")
        #expect(try make(GitHubGistsSource.self, [("user", "defunkt"), ("since", "2024-01-31T00:00:00Z")]).firstPageURL.absoluteString
            == "https://api.github.com/users/defunkt/gists?since=2024-01-31T00%3A00%3A00Z")
        #expect(try make(GitHubGistsSource.self, [("since", "2024-01-31T02:00:00+02:00")]).firstPageURL.absoluteString
            == "https://api.github.com/gists/public?since=2024-01-31T00%3A00%3A00Z")
        #expect(try make(FiveHundredPxSource.self, [("feature", "editors")], baseURL: "http://127.0.0.1:8765").firstPageURL.absoluteString
            == "http://127.0.0.1:8765/v1/photos?feature=editors")
        #expect(try make(FiveHundredPxSource.self, []).firstPageURL.absoluteString
            == "https://api.500px.com/v1/photos?feature=popular")
        #expect(try make(FiveHundredPxSource.self, [("only", "Black and White"), ("consumer_key", "k3y")]).firstPageURL.absoluteString
            == "https://api.500px.com/v1/photos?feature=popular&only=Black%20and%20White&consumer_key=k3y")
    }

    @Test("the pagination strategy adds the page size: per_page for GitHub, page and rpp for 500px")
    func firstPages() throws {
        let repos = try make(GitHubReposSource.self, [("org", "apple")])
        #expect(repos.pagination.firstPage(repos.firstPageURL, pageSize: 100).absoluteString
            == "https://api.github.com/orgs/apple/repos?per_page=100")
        let photos = try make(FiveHundredPxSource.self, [("feature", "editors")])
        #expect(photos.pagination.firstPage(photos.firstPageURL, pageSize: 20).absoluteString
            == "https://api.500px.com/v1/photos?feature=editors&page=1&rpp=20")
    }

    @Test("request headers always; the credential header only with a token")
    func headers() throws {
        let anonymous = try make(GitHubReposSource.self, [("org", "apple")])
        #expect(anonymous.requestHeaders["Accept"] == "application/vnd.github+json")
        #expect(anonymous.requestHeaders["X-GitHub-Api-Version"] == "2022-11-28")
        #expect(anonymous.credentialHeaders.fields.isEmpty)
        #expect(anonymous.requestHeaders["Authorization"] == nil)

        let members = try make(GitHubMembersSource.self, [("org", "apple"), ("token", "ghp_secret")])
        #expect(members.credentialHeaders == ["Authorization": "Bearer ghp_secret"])
        #expect(members.requestHeaders["Authorization"] == nil)
        let gists = try make(GitHubGistsSource.self, [("token", "ghp_secret")])
        #expect(gists.credentialHeaders == ["Authorization": "Bearer ghp_secret"])
        #expect(try make(GitHubGistsSource.self, [("token", "~")]).credentialHeaders.fields.isEmpty)

        let photos = try make(FiveHundredPxSource.self, [("consumer_key", "k3y")])
        #expect(photos.credentialHeaders.fields.isEmpty)
        #expect(Redaction.redact(photos.firstPageURL) == "https://api.500px.com/v1/photos?feature=popular&consumer_key=REDACTED")
    }

    @Test("descriptors list every parameter a source reads")
    func descriptors() {
        func names(_ descriptor: SourceDescriptor) -> [String] { descriptor.parameters.map(\.name) }
        #expect(names(GitHubReposSource.descriptor) == ["org", "user", "type", "sort", "direction", "token"])
        #expect(names(GitHubMembersSource.descriptor) == ["org", "token"])
        #expect(names(GitHubGistsSource.descriptor) == ["user", "since", "token"])
        #expect(names(FiveHundredPxSource.descriptor) == ["feature", "only", "consumer_key"])
        #expect(GitHubReposSource.descriptor.typeName == "github.repos")
        #expect(GitHubMembersSource.descriptor.typeName == "github.members")
        #expect(GitHubGistsSource.descriptor.typeName == "github.gists")
        #expect(FiveHundredPxSource.descriptor.typeName == "photos.500px")
        for descriptor in [GitHubReposSource.descriptor, GitHubMembersSource.descriptor, GitHubGistsSource.descriptor] {
            #expect(descriptor.defaultBaseURL == "https://api.github.com")
            #expect(descriptor.defaultPageSize == 30)
            #expect(descriptor.maxPageSize == 100)
        }
        #expect(FiveHundredPxSource.descriptor.defaultBaseURL == "https://api.500px.com")
        #expect(FiveHundredPxSource.descriptor.defaultPageSize == 20)
        #expect(FiveHundredPxSource.descriptor.maxPageSize == 100)
    }
}

// MARK: - github.members and github.gists (inline bodies)

@Suite("github.members and github.gists")
struct GitHubMembersGistsDecodeTests {
    @Test("members: login, profile, avatar, no dates")
    func member() throws {
        let source = try make(GitHubMembersSource.self, [("org", "xebia-france")])
        let body = """
            [{"login":"octocat","id":583231,"avatar_url":"https://avatars.githubusercontent.com/u/583231?v=4",
              "html_url":"https://github.com/octocat","type":"User","site_admin":false},
             {"login":"hubot","id":1,"avatar_url":"https://avatars.githubusercontent.com/u/1?v=4",
              "html_url":"https://github.com/hubot","type":"Bot","site_admin":true}]
            """
        let items = try source.decodePage(try page(body)).items
        #expect(items.map(\.id) == ["github.members:583231", "github.members:1"])
        #expect(items[0].title == "octocat")
        #expect(items[0].summary == "Member of xebia-france")
        #expect(items[1].summary == "Member of xebia-france (Bot) (site admin)")
        #expect(items[0].url == "https://github.com/octocat")
        #expect(items[0].imageURL == "https://avatars.githubusercontent.com/u/583231?v=4")
        #expect(items[0].author?.name == "octocat")
        #expect(items.allSatisfy { $0.published == nil && $0.updated == nil })
        #expect(source.ordering == .unordered)
    }

    @Test("gists: title falls back to the first file by name, then the id; files summarised")
    func gists() throws {
        let source = try make(GitHubGistsSource.self, [])
        let body = """
            [{"id":"aa11","html_url":"https://gist.github.com/octocat/aa11","description":"  Build\\n  notes ",
              "files":{"z.md":{"filename":"z.md","language":"Markdown"},"a.py":{"filename":"a.py","language":"Python"}},
              "owner":{"login":"octocat","avatar_url":"https://avatars.githubusercontent.com/u/583231?v=4"},
              "user":null,"created_at":"2024-01-30T10:00:00Z","updated_at":"2024-01-31T10:00:00Z"},
             {"id":"bb22","html_url":"https://gist.github.com/bb22","description":"",
              "files":{"notes":{"filename":"notes","language":null}},"owner":null,"user":null,
              "created_at":"2024-01-29T10:00:00Z","updated_at":"2024-01-29T10:00:00Z"},
             {"id":"cc33","description":null,"files":{},"created_at":"2024-01-28T10:00:00Z","updated_at":null}]
            """
        let items = try source.decodePage(try page(body)).items
        #expect(items.map(\.id) == ["github.gists:aa11", "github.gists:bb22", "github.gists:cc33"])
        #expect(items.map(\.title) == ["Build notes", "notes", "cc33"])
        #expect(items[0].summary == "2 files: a.py (Python), z.md (Markdown)")
        #expect(items[1].summary == "1 file: notes")
        #expect(items[2].summary == nil)
        #expect(items[0].author?.name == "octocat")
        #expect(items[1].author == nil)
        #expect(items[2].author == nil)
        #expect(items[0].published == ISO8601.date(from: "2024-01-30T10:00:00Z"))
        #expect(items[0].updated == ISO8601.date(from: "2024-01-31T10:00:00Z"))
        #expect(items[2].updated == nil)
        #expect(source.ordering == .unordered)
    }
}

// MARK: - Real GitHub responses

@Suite("GitHub real-world samples", .enabled(if: Realworld.isAvailable, Realworld.missing))
struct GitHubRealworldTests {
    static let repos = [
        "orgs-repos.BeaverSoftware.2012.PyGithub.json", "orgs-repos.codeforamerica.2014.octokit-rb.json",
        "orgs-repos.github3py.2017.github3py.json",
    ]
    static let members = [
        "orgs-public_members.BeaverSoftware.2012.PyGithub.json", "orgs-public_members.codeforamerica.2014.octokit-rb.json",
        "orgs-public_members.github3py.2017.github3py.json",
    ]
    static let gists = [
        "gists-authenticated-user.2012.PyGithub.json", "gists-public.page1.2012.PyGithub.json",
        "gists-public.page1.2014.octokit-rb.json", "gists-public.since.2018.github3py.json",
        "users-gists.defunkt.2014.octokit-rb.json", "users-gists.jacquev6.2012.PyGithub.json",
        "users-gists.sigmavirus24.2017.github3py.json",
    ]

    @Test("repos: one item per array element, every one dated and linked", arguments: repos)
    func reposSample(_ name: String) throws {
        let sample = try Realworld.githubSample(name)
        let source = try make(GitHubReposSource.self, [("org", "sample")])
        let items = try source.decodePage(try page(sample.body, url: sample.url.absoluteString)).items
        #expect(items.count == sample.itemCount)
        #expect(Set(items.map(\.id)).count == items.count)
        for item in items {
            #expect(item.id.hasPrefix("github.repos:"))
            #expect(item.published != nil && item.updated != nil)
            #expect(item.url?.hasPrefix("https://github.com/") == true)
            #expect(item.author != nil && item.imageURL != nil)
            #expect(item.raw?.isEmpty == false)
        }
    }

    @Test("repos: 2012 payloads use forks/watchers/open_issues and lack owner.html_url")
    func repos2012() throws {
        let sample = try Realworld.githubSample("orgs-repos.BeaverSoftware.2012.PyGithub.json")
        let items = try make(GitHubReposSource.self, [("org", "BeaverSoftware")]).decodePage(try page(sample.body)).items
        let first = try #require(items.first)
        #expect(first.id == "github.repos:3400397")
        #expect(first.title == "FatherBeaver")
        #expect(first.summary == "No language - 1 forks - 2 watchers - 0 open issues")
        #expect(first.author?.name == "BeaverSoftware")
        #expect(first.author?.url == "https://github.com/BeaverSoftware")  // derived from the API root
        #expect(first.published == ISO8601.date(from: "2012-02-09T19:32:21Z"))
        #expect(first.updated == ISO8601.date(from: "2012-02-16T21:51:15Z"))
    }

    @Test("repos: default order is not newest-first by updated_at in real data")
    func reposDefaultOrderIsNotNewestFirst() throws {
        let sample = try Realworld.githubSample("orgs-repos.codeforamerica.2014.octokit-rb.json")
        let items = try make(GitHubReposSource.self, [("org", "codeforamerica")]).decodePage(try page(sample.body)).items
        let dates = items.compactMap(\.sortDate)
        #expect(dates != dates.sorted(by: >))
        #expect(try make(GitHubReposSource.self, [("org", "codeforamerica")]).ordering == .unordered)
    }

    @Test("members: one item per array element", arguments: members)
    func membersSample(_ name: String) throws {
        let sample = try Realworld.githubSample(name)
        let items = try make(GitHubMembersSource.self, [("org", "sample")]).decodePage(try page(sample.body)).items
        #expect(items.count == sample.itemCount)
        for item in items {
            #expect(item.url?.hasPrefix("https://github.com/") == true)
            #expect(item.imageURL != nil)
            #expect(item.summary == "Member of sample")
        }
    }

    @Test("members: a 2012 member without html_url still gets a profile URL")
    func members2012() throws {
        let sample = try Realworld.githubSample("orgs-public_members.BeaverSoftware.2012.PyGithub.json")
        let item = try #require(
            try make(GitHubMembersSource.self, [("org", "BeaverSoftware")]).decodePage(try page(sample.body)).items.first)
        #expect(item.id == "github.members:327146")
        #expect(item.title == "jacquev6")
        #expect(item.url == "https://github.com/jacquev6")
        #expect(item.summary == "Member of BeaverSoftware")
    }

    @Test("gists: one item per array element, old and new field sets", arguments: gists)
    func gistsSample(_ name: String) throws {
        let sample = try Realworld.githubSample(name)
        let items = try make(GitHubGistsSource.self, []).decodePage(try page(sample.body)).items
        #expect(items.count == sample.itemCount)
        for item in items {
            #expect(!item.title.isEmpty)
            #expect(item.author != nil)  // every recorded gist has an owner or (2012) a user
            #expect(item.published != nil && item.updated != nil)
            #expect(item.url?.hasPrefix("https://gist.github.com/") == true)
        }
    }

    @Test("gists: 2012 'user' is the author; files are listed by name")
    func gists2012() throws {
        let sample = try Realworld.githubSample("gists-public.page1.2012.PyGithub.json")
        let items = try make(GitHubGistsSource.self, []).decodePage(try page(sample.body)).items
        #expect(items[0].id == "github.gists:2729695")
        #expect(items[0].title == "pressman.md")
        #expect(items[0].summary == "1 file: pressman.md (Markdown)")
        #expect(items[0].author?.name == "kombomilk")
        #expect(items[17].title == "add.rb")
        #expect(items[17].summary == "4 files: add.rb (Ruby), client.rb (Ruby), client_for_polling.rb (Ruby), mr.rb (Ruby)")
    }

    @Test("gists: a gist with no files and no description is titled by its id")
    func gistWithoutFiles() throws {
        let sample = try Realworld.githubSample("users-gists.defunkt.2014.octokit-rb.json")
        let items = try make(GitHubGistsSource.self, [("user", "defunkt")]).decodePage(try page(sample.body)).items
        let bare = try #require(items.first { $0.id == "github.gists:3861332" })
        #expect(bare.title == "3861332")
        #expect(bare.summary == nil)
        #expect(bare.author?.name == "defunkt")
    }

    @Test("gists come newest-created first, but updated_at (their sortDate) is not monotonic")
    func gistOrder() throws {
        let sample = try Realworld.githubSample("users-gists.sigmavirus24.2017.github3py.json")
        let items = try make(GitHubGistsSource.self, [("user", "sigmavirus24")]).decodePage(try page(sample.body)).items
        let published = items.compactMap(\.published)
        let sortDates = items.compactMap(\.sortDate)
        #expect(published == published.sorted(by: >))
        #expect(sortDates != sortDates.sorted(by: >))
    }
}

// MARK: - photos.500px

/// A ghserver-style 500px envelope (`photos` in bench/ghserver.py) around `photos`.
func envelope(_ photos: [String], totals: Bool = true) -> String {
    let head = totals ? #""current_page":2,"total_pages":100,"total_items":2000,"# : ""
    return "{\(head)\"filters\":{\"category\":false,\"exclude\":false},\"feature\":\"editors\",\"photos\":[\(photos.joined(separator: ","))]}"
}

func photoJSON(id: Int = 123_456_789, name: String = "\"Golden Hour\"", description: String = "\"Tokyo at dusk\"",
               imageURL: String = "\"https://drscdn.500px.org/photo/123456789/q%3D80_m%3D2000/v2?sig=ab\"") -> String {
    """
    {"id":\(id),"user_id":4242,"name":\(name),"description":\(description),"created_at":"2017-10-02T13:43:27-05:00",
     "image_url":\(imageURL),"images":[{"size":2,"url":"https://drscdn.500px.org/photo/x","https_url":"https://drscdn.500px.org/photo/x"}],
     "user":{"id":4242,"username":"fast4242","firstname":"Fast4242","lastname":"","fullname":"Fast4242",
             "userpic_url":"https://drscdn.500px.org/user_avatar/4242/q%3D85_w%3D300_h%3D300/v2"}}
    """
}

@Suite("photos.500px")
struct FiveHundredPxDecodeTests {
    let photosURL = "https://api.500px.com/v1/photos?feature=editors&page=2&rpp=20"

    @Test("an envelope: items from photos, totals from the envelope")
    func envelopeBody() throws {
        let source = try make(FiveHundredPxSource.self, [("feature", "editors")])
        let decoded = try source.decodePage(try page(envelope([photoJSON(), photoJSON(id: 7)]), url: photosURL))
        #expect(decoded.items.count == 2)
        #expect(decoded.totals == PageTotals(currentPage: 2, totalPages: 100, totalItems: 2000))
        let item = decoded.items[0]
        #expect(item.id == "photos.500px:123456789")
        #expect(item.title == "Golden Hour")
        #expect(item.summary == "Tokyo at dusk")
        #expect(item.url == "https://500px.com/photo/123456789")
        #expect(item.imageURL == "https://drscdn.500px.org/photo/123456789/q%3D80_m%3D2000/v2?sig=ab")
        #expect(item.author == FeedAuthor(
            name: "Fast4242", url: "https://500px.com/fast4242",
            avatarURL: "https://drscdn.500px.org/user_avatar/4242/q%3D85_w%3D300_h%3D300/v2"))
        #expect(item.published == ISO8601.date(from: "2017-10-02T18:43:27Z"))
        #expect(item.updated == nil)
        #expect(source.ordering == .unordered)
    }

    @Test("an envelope without total_pages (absent or null) is an error at $.total_pages")
    func missingTotals() throws {
        let source = try make(FiveHundredPxSource.self, [])
        for body in [envelope([photoJSON()], totals: false), #"{"current_page":1,"total_pages":null,"photos":[]}"#] {
            let failure = try error(PageDecodeError.self) { _ = try source.decodePage(try page(body, url: photosURL)) }
            #expect(failure.path == "$.total_pages")
            #expect(failure.message == "expected the page count (an integer), found nothing (absent or null)")
        }
    }

    @Test("a relative image_url is resolved against the feed's base_url")
    func relativeImage() throws {
        let source = try make(FiveHundredPxSource.self, [], baseURL: "http://127.0.0.1:8765/api")
        let body = envelope([
            photoJSON(id: 1, imageURL: #""/photo/1/w%3D440/v2?sig=1""#),
            photoJSON(id: 2, imageURL: #""//drscdn.500px.org/photo/2/v2""#),
            photoJSON(id: 3, imageURL: #"["https://a.example/3/small","https://a.example/3/large"]"#),
            photoJSON(id: 4, imageURL: "null"),
        ])
        let items = try source.decodePage(try page(body)).items
        #expect(items.map(\.imageURL) == [
            "http://127.0.0.1:8765/photo/1/w%3D440/v2?sig=1", "http://drscdn.500px.org/photo/2/v2",
            "https://a.example/3/large", "https://drscdn.500px.org/photo/x",
        ])
    }

    @Test("null description → no summary; empty name → Untitled; HTML → one line of text")
    func text() throws {
        let source = try make(FiveHundredPxSource.self, [])
        let long = String(repeating: "word ", count: 80)
        let body = envelope([
            photoJSON(id: 1, name: "\"\"", description: "null"),
            photoJSON(id: 2, name: "\"Nini&mdash;秀\"", description: #""<a href=\"http://x.example\">VIDEO\n TUTORIALS</a><br/>Order --&gt; presets &amp; more""#),
            photoJSON(id: 3, name: "null", description: "\"\(long)\""),
            photoJSON(id: 4, description: "\"   \""),
        ])
        let items = try source.decodePage(try page(body)).items
        #expect(items[0].title == "Untitled")
        #expect(items[0].summary == nil)
        #expect(items[1].title == "Nini\u{2014}秀")
        #expect(items[1].summary == "VIDEO TUTORIALS Order --> presets & more")
        #expect(items[2].title == "Untitled")
        let summary = try #require(items[2].summary)
        #expect(summary.count <= 200)
        #expect(summary.hasSuffix("word\u{2026}"))
        #expect(items[3].summary == nil)
    }

    @Test("a bare array body is rejected at $ naming the expected envelope")
    func bareArray() throws {
        let source = try make(FiveHundredPxSource.self, [])
        let failure = try error(PageDecodeError.self) { _ = try source.decodePage(try page("[\(photoJSON())]")) }
        #expect(failure.path == "$")
        #expect(failure.message == "expected the 500px envelope object {current_page, total_pages, total_items, photos: [...]}, found a bare array")
    }

    @Test("an envelope without photos, or with a null id, is an error with its path")
    func badEnvelope() throws {
        let source = try make(FiveHundredPxSource.self, [])
        let missing = try error(PageDecodeError.self) { _ = try source.decodePage(try page(#"{"current_page":1}"#)) }
        #expect(missing.path == "$")
        #expect(missing.message.contains("photos"))
        let nullID = try error(PageDecodeError.self) {
            _ = try source.decodePage(try page(envelope([photoJSON(), photoJSON().replacingOccurrences(of: #""id":123456789"#, with: #""id":null"#)])))
        }
        #expect(nullID.path == "$.photos[1].id")
        let textTotals = try error(PageDecodeError.self) {
            _ = try source.decodePage(try page(#"{"current_page":"1","photos":[]}"#))
        }
        #expect(textTotals.path == "$.current_page")
    }

    @Test("an HTML page served with status 200 is an error")
    func htmlBody() throws {
        let source = try make(FiveHundredPxSource.self, [])
        let failure = try error(PageDecodeError.self) {
            _ = try source.decodePage(try page("<html><body>Service Unavailable</body></html>", contentType: "text/html; charset=utf-8"))
        }
        #expect(failure.path == "$")
    }

    // Reproduced with the photos-500px fuzz target (make fuzz): tag stripping searched for a `>`
    // after every unclosed `<a`, so a 200 kB description took minutes to decode.
    @Test("a long description full of unclosed tags decodes in linear time", .timeLimit(.minutes(1)))
    func unclosedTags() throws {
        let source = try make(FiveHundredPxSource.self, [])
        let unclosed = String(repeating: "<a", count: 100_000)
        let body = envelope([
            photoJSON(id: 1, description: "\"\(unclosed)\""),
            photoJSON(id: 2, description: #""<b>bold</b> then <i unclosed""#),
        ])
        let items = try source.decodePage(try page(body)).items
        let summary = try #require(items[0].summary)
        #expect(summary.count <= 200)
        #expect(summary.hasPrefix("<a<a<a"), "an unclosed tag is text, kept as written")
        #expect(items[1].summary == "bold then <i unclosed")
    }
}

@Suite("500px real-world samples", .enabled(if: Realworld.isAvailable, Realworld.missing))
struct FiveHundredPxRealworldTests {
    @Test(
        "real envelopes: 20 photos each, totals read, every item linked and dated",
        arguments: ["abstract.json", "black-and-white.json", "concert.json", "family.json", "landscapes.json", "nature.json"])
    func envelopes(_ name: String) throws {
        let data = try Realworld.fiveHundredPx(name)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let photos = try #require(object["photos"] as? [Any])
        let source = try make(FiveHundredPxSource.self, [])
        let decoded = try source.decodePage(try page(data, url: "https://api.500px.com/v1/photos?feature=popular&page=1&rpp=20"))
        #expect(decoded.items.count == photos.count)
        #expect(decoded.totals?.currentPage == object["current_page"] as? Int)
        #expect(decoded.totals?.totalPages == object["total_pages"] as? Int)
        #expect(decoded.totals?.totalItems == object["total_items"] as? Int)
        for item in decoded.items {
            #expect(item.url?.hasPrefix("https://500px.com/photo/") == true)
            #expect(item.imageURL?.hasPrefix("https://") == true)
            #expect(item.published != nil)
            #expect(item.author != nil)
            #expect(item.summary.map { !$0.contains("<a ") && $0.count <= 200 } ?? true)
        }
    }

    @Test("abstract.json: first photo mapped field by field; null descriptions give no summary")
    func abstract() throws {
        let decoded = try make(FiveHundredPxSource.self, []).decodePage(try page(try Realworld.fiveHundredPx("abstract.json")))
        #expect(decoded.totals == PageTotals(currentPage: 1, totalPages: 48, totalItems: 954))
        let first = decoded.items[0]
        #expect(first.id == "photos.500px:230363763")
        #expect(first.title == "Sprinkenhof Spiral Staircase")
        #expect(first.summary == #"The spiral Staircase in the "Sprinkenhof" in Hamburg, Germany."#)
        #expect(first.url == "https://500px.com/photo/230363763/sprinkenhof-spiral-staircase-by-tobias-gawrisch")
        #expect(first.author?.name == "Tobias Gawrisch")
        #expect(first.author?.url == "https://500px.com/xplor-creativity")
        #expect(first.published == ISO8601.date(from: "2017-10-02T20:56:46Z"))
        let undescribed = try #require(decoded.items.first { $0.id == "photos.500px:230359523" })
        #expect(undescribed.summary == nil)
    }

    @Test("photos.json, a bare array, is rejected with a clear error")
    func bareArray() throws {
        let source = try make(FiveHundredPxSource.self, [])
        let failure = try error(PageDecodeError.self) {
            _ = try source.decodePage(try page(try Realworld.fiveHundredPx("photos.json")))
        }
        #expect(failure.path == "$")
        #expect(failure.description.hasPrefix("expected the 500px envelope object"))
        #expect(failure.description.hasSuffix("found a bare array at $"))
    }
}
