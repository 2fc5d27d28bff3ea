import FeedCore
import FeedaggTesting
import Foundation
import GitHubSource
import Testing

// github.members and github.gists pages decoded and mapped from inline bodies.

@Suite("github.members and github.gists")
struct GitHubMembersGistsDecodeTests {
    @Test("members: login, profile, avatar, no dates")
    func member() throws {
        let source = try GitHubMembersSource.make([("org", "xebia-france")])
        let body = """
            [{"login":"octocat","id":583231,"avatar_url":"https://avatars.githubusercontent.com/u/583231?v=4",
              "html_url":"https://github.com/octocat","type":"User","site_admin":false},
             {"login":"hubot","id":1,"avatar_url":"https://avatars.githubusercontent.com/u/1?v=4",
              "html_url":"https://github.com/hubot","type":"Bot","site_admin":true}]
            """
        let items = try source.decodePage(try FetchedPage.sample(body)).items
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
        let source = try GitHubGistsSource.make([])
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
        let items = try source.decodePage(try FetchedPage.sample(body)).items
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
