import FeedCore
import FeedaggTesting
import Foundation
import GitHubSource
import Testing

// Real GitHub responses from ../shared/realworld decoded and mapped.

@Suite("GitHub real-world samples", .enabled(if: RepositoryPaths.hasRealworld, Comment(rawValue: RepositoryPaths.realworldUnavailableReason)))
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
        let source = try GitHubReposSource.make([("org", "sample")])
        let items = try source.decodePage(try FetchedPage.sample(sample.body, at: sample.url.absoluteString)).items
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
        let items = try GitHubReposSource.make([("org", "BeaverSoftware")]).decodePage(try FetchedPage.sample(sample.body)).items
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
        let items = try GitHubReposSource.make([("org", "codeforamerica")]).decodePage(try FetchedPage.sample(sample.body)).items
        let dates = items.compactMap(\.sortDate)
        #expect(dates != dates.sorted(by: >))
        #expect(try GitHubReposSource.make([("org", "codeforamerica")]).ordering == .unordered)
    }

    @Test("members: one item per array element", arguments: members)
    func membersSample(_ name: String) throws {
        let sample = try Realworld.githubSample(name)
        let items = try GitHubMembersSource.make([("org", "sample")]).decodePage(try FetchedPage.sample(sample.body)).items
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
            try GitHubMembersSource.make([("org", "BeaverSoftware")]).decodePage(try FetchedPage.sample(sample.body)).items.first)
        #expect(item.id == "github.members:327146")
        #expect(item.title == "jacquev6")
        #expect(item.url == "https://github.com/jacquev6")
        #expect(item.summary == "Member of BeaverSoftware")
    }

    @Test("gists: one item per array element, old and new field sets", arguments: gists)
    func gistsSample(_ name: String) throws {
        let sample = try Realworld.githubSample(name)
        let items = try GitHubGistsSource.make([]).decodePage(try FetchedPage.sample(sample.body)).items
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
        let items = try GitHubGistsSource.make([]).decodePage(try FetchedPage.sample(sample.body)).items
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
        let items = try GitHubGistsSource.make([("user", "defunkt")]).decodePage(try FetchedPage.sample(sample.body)).items
        let bare = try #require(items.first { $0.id == "github.gists:3861332" })
        #expect(bare.title == "3861332")
        #expect(bare.summary == nil)
        #expect(bare.author?.name == "defunkt")
    }

    @Test("gists come newest-created first, but updated_at (their sortDate) is not monotonic")
    func gistOrder() throws {
        let sample = try Realworld.githubSample("users-gists.sigmavirus24.2017.github3py.json")
        let items = try GitHubGistsSource.make([("user", "sigmavirus24")]).decodePage(try FetchedPage.sample(sample.body)).items
        let published = items.compactMap(\.published)
        let sortDates = items.compactMap(\.sortDate)
        #expect(published == published.sorted(by: >))
        #expect(sortDates != sortDates.sorted(by: >))
    }
}
