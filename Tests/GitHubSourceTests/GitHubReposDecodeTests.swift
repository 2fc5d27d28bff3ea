import FeedCore
import FeedaggTesting
import Foundation
import GitHubSource
import Testing

// github.repos pages decoded and mapped: inline bodies, located errors.

@Suite("github.repos")
struct GitHubReposDecodeTests {
    @Test("summary is exactly '<language> - N forks - N watchers - N open issues'")
    func summaryFormat() throws {
        let source = try GitHubReposSource.make([("org", "apple")])
        let decoded = try source.decodePage(try FetchedPage.sample("[\(repoJSON())]"))
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
        let source = try GitHubReposSource.make([("org", "apple")])
        let item = try #require(try source.decodePage(try FetchedPage.sample("[\(repoJSON(language: "null", forks: 0, watchers: 1, issues: 0))]")).items.first)
        #expect(item.summary == "No language - 0 forks - 1 watchers - 0 open issues")
    }

    @Test("a null name is an error at $[i].name")
    func nullName() throws {
        let source = try GitHubReposSource.make([("org", "apple")])
        let body = "[\(repoJSON(id: 1)), \(repoJSON(id: 2, name: "null"))]"
        let failure = try thrownError(PageDecodeError.self) { _ = try source.decodePage(try FetchedPage.sample(body)) }
        #expect(failure.path == "$[1].name")
        #expect(failure.message == "expected a string, found null")
        let first = try thrownError(PageDecodeError.self) { _ = try source.decodePage(try FetchedPage.sample("[\(repoJSON(name: "null"))]")) }
        #expect(first.path == "$[0].name")
    }

    @Test("a malformed timestamp is an error at its path")
    func badTimestamp() throws {
        let source = try GitHubReposSource.make([("org", "apple")])
        let body = "[\(repoJSON().replacingOccurrences(of: "2015-10-23T21:15:07Z", with: "last tuesday"))]"
        let failure = try thrownError(PageDecodeError.self) { _ = try source.decodePage(try FetchedPage.sample(body)) }
        #expect(failure.path == "$[0].created_at")
    }

    @Test("an HTML page served with status 200 is an error, not zero items")
    func htmlBody() throws {
        let source = try GitHubReposSource.make([("org", "apple")])
        let html = "<!DOCTYPE html><html><body>Unicorn! This page is taking too long to load.</body></html>"
        let typed = try thrownError(PageDecodeError.self) { _ = try source.decodePage(try .sample(html, contentType: "text/html")) }
        #expect(typed.path == "$")
        #expect(typed.message.contains("text/html"))
        let untyped = try thrownError(PageDecodeError.self) { _ = try source.decodePage(try .sample(html, contentType: "application/json")) }
        #expect(untyped.path == "$")
        #expect(untyped.message.contains("markup"))
    }

    @Test("an object body (e.g. an error document) is an error at $")
    func objectBody() throws {
        let source = try GitHubReposSource.make([("org", "apple")])
        let failure = try thrownError(PageDecodeError.self) {
            _ = try source.decodePage(try FetchedPage.sample(#"{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}"#))
        }
        #expect(failure.path == "$")
        #expect(failure.message.contains("array"))
    }

    @Test("an empty array is a page without items")
    func emptyArray() throws {
        let source = try GitHubReposSource.make([("user", "octocat")])
        #expect(try source.decodePage(try FetchedPage.sample("[]")).items.isEmpty)
    }

    @Test("ordering is newest first only for sort: updated, descending")
    func ordering() throws {
        #expect(try GitHubReposSource.make([("org", "a")]).ordering == .unordered)
        #expect(try GitHubReposSource.make([("org", "a"), ("sort", "updated")]).ordering == .newestFirst)
        #expect(try GitHubReposSource.make([("org", "a"), ("sort", "updated"), ("direction", "desc")]).ordering == .newestFirst)
        #expect(try GitHubReposSource.make([("org", "a"), ("sort", "updated"), ("direction", "asc")]).ordering == .unordered)
        #expect(try GitHubReposSource.make([("org", "a"), ("sort", "created")]).ordering == .unordered)
        #expect(try GitHubReposSource.make([("org", "a"), ("sort", "pushed")]).ordering == .unordered)
        #expect(try GitHubReposSource.make([("user", "a"), ("sort", "full_name")]).ordering == .unordered)
    }
}
