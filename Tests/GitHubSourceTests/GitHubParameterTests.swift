import FeedCore
import FeedaggTesting
import Foundation
import GitHubSource
import Testing

// GitHub sources configured from feeds.yaml: located errors, endpoints, headers, descriptors.

@Suite("GitHub parameters")
struct GitHubParameterTests {
    @Test("github.repos without org or user: located at the feed mapping")
    func neitherOrgNorUser() throws {
        let yaml = FeedYAML(name: "swift-repos", source: "github.repos", [("type", "public")])
        let context = FeedContext(name: "swift-repos", baseURL: try #require(URL(string: "https://api.github.com")), pageSize: 30)
        let failure = try thrownError(ConfigError.self) { _ = try GitHubReposSource(feed: context, parameters: yaml.parameters) }
        #expect(failure.message == "feed 'swift-repos' (github.repos) needs exactly one of 'org' or 'user'")
        #expect(failure.location?.line == 2)
        #expect(failure.location?.column == 5)
        #expect(failure.description.hasPrefix("feeds.yaml:2:5: error: feed 'swift-repos' (github.repos) needs exactly one"))
        #expect(failure.description.hasSuffix("\n    - name: swift-repos\n      ^"))
    }

    @Test("github.repos with both org and user: located at the feed mapping")
    func bothOrgAndUser() throws {
        let failure = try thrownError(ConfigError.self) {
            _ = try GitHubReposSource.make([("org", "apple"), ("user", "octocat")])
        }
        #expect(failure.message == "feed 'x' (github.repos) needs exactly one of 'org' or 'user'")
        #expect(failure.location?.line == 2)
    }

    @Test("github.members without org: the loader's missing-parameter error, located")
    func membersMissingOrg() throws {
        let failure = try thrownError(ConfigError.self) { _ = try GitHubMembersSource.make([]) }
        #expect(failure.message == "feed 'x' (github.members) is missing required parameter 'org'")
        #expect(failure.location?.line == 2)
        #expect(failure.location?.column == 5)
    }

    @Test("an unknown repo type or sort is located at its value, with a suggestion")
    func badChoice() throws {
        let type = try thrownError(ConfigError.self) { _ = try GitHubReposSource.make([("org", "a"), ("type", "froks")]) }
        #expect(type.location?.line == 5)
        #expect(type.location?.column == 11)
        #expect(type.message.hasPrefix("'type' must be one of all, public, private, forks, sources, member, internal"))
        #expect(type.notes == ["help: did you mean 'forks'?"])
        let userType = try thrownError(ConfigError.self) { _ = try GitHubReposSource.make([("user", "a"), ("type", "sources")]) }
        #expect(userType.message == "'type' must be one of all, owner, member for a user, found 'sources'")
        let sort = try thrownError(ConfigError.self) { _ = try GitHubReposSource.make([("org", "a"), ("sort", "stars")]) }
        #expect(sort.location?.line == 5)
    }

    @Test("endpoints honour base_url, including a GitHub Enterprise /api/v3 prefix")
    func endpoints() throws {
        let ghe = "https://ghe.example.com/api/v3"
        #expect(try GitHubReposSource.make([("org", "apple")]).firstPageURL.absoluteString
            == "https://api.github.com/orgs/apple/repos")
        #expect(try GitHubReposSource.make([("org", "my org/x")], baseURL: ghe).firstPageURL.absoluteString
            == "https://ghe.example.com/api/v3/orgs/my%20org%2Fx/repos")
        #expect(try GitHubReposSource.make([("user", "octocat"), ("type", "owner"), ("sort", "updated")], baseURL: ghe + "/")
            .firstPageURL.absoluteString == "https://ghe.example.com/api/v3/users/octocat/repos?type=owner&sort=updated")
        #expect(try GitHubMembersSource.make([("org", "swiftlang")], baseURL: ghe).firstPageURL.absoluteString
            == "https://ghe.example.com/api/v3/orgs/swiftlang/public_members")
        #expect(try GitHubGistsSource.make([], baseURL: ghe).firstPageURL.absoluteString
            == "https://ghe.example.com/api/v3/gists/public")
        #expect(try GitHubGistsSource.make([("user", "defunkt"), ("since", "2024-01-31T00:00:00Z")]).firstPageURL.absoluteString
            == "https://api.github.com/users/defunkt/gists?since=2024-01-31T00%3A00%3A00Z")
        #expect(try GitHubGistsSource.make([("since", "2024-01-31T02:00:00+02:00")]).firstPageURL.absoluteString
            == "https://api.github.com/gists/public?since=2024-01-31T00%3A00%3A00Z")
    }

    @Test("the pagination strategy adds the page size: per_page for GitHub")
    func firstPages() throws {
        let repos = try GitHubReposSource.make([("org", "apple")])
        #expect(repos.pagination.firstPage(repos.firstPageURL, pageSize: 100).absoluteString
            == "https://api.github.com/orgs/apple/repos?per_page=100")
    }

    @Test("request headers always; the credential header only with a token")
    func headers() throws {
        let anonymous = try GitHubReposSource.make([("org", "apple")])
        #expect(anonymous.requestHeaders["Accept"] == "application/vnd.github+json")
        #expect(anonymous.requestHeaders["X-GitHub-Api-Version"] == "2022-11-28")
        #expect(anonymous.credentialHeaders.fields.isEmpty)
        #expect(anonymous.requestHeaders["Authorization"] == nil)

        let members = try GitHubMembersSource.make([("org", "apple"), ("token", "ghp_secret")])
        #expect(members.credentialHeaders == ["Authorization": "Bearer ghp_secret"])
        #expect(members.requestHeaders["Authorization"] == nil)
        let gists = try GitHubGistsSource.make([("token", "ghp_secret")])
        #expect(gists.credentialHeaders == ["Authorization": "Bearer ghp_secret"])
        #expect(try GitHubGistsSource.make([("token", "~")]).credentialHeaders.fields.isEmpty)
    }

    @Test("descriptors list every parameter a source reads")
    func descriptors() {
        func names(_ descriptor: SourceDescriptor) -> [String] { descriptor.parameters.map(\.name) }
        #expect(names(GitHubReposSource.descriptor) == ["org", "user", "type", "sort", "direction", "token"])
        #expect(names(GitHubMembersSource.descriptor) == ["org", "token"])
        #expect(names(GitHubGistsSource.descriptor) == ["user", "since", "token"])
        #expect(GitHubReposSource.descriptor.typeName == "github.repos")
        #expect(GitHubMembersSource.descriptor.typeName == "github.members")
        #expect(GitHubGistsSource.descriptor.typeName == "github.gists")
        for descriptor in [GitHubReposSource.descriptor, GitHubMembersSource.descriptor, GitHubGistsSource.descriptor] {
            #expect(descriptor.defaultBaseURL == "https://api.github.com")
            #expect(descriptor.defaultPageSize == 30)
            #expect(descriptor.maxPageSize == 100)
        }
    }
}
