import FeedCore
import FeedaggTesting
import Foundation
import GitHubSource
import Testing

// Shared by this target's decode and configuration tests: no network, no engine. Real
// responses are read in place from ../shared/realworld (beside the project); tests that need them
// are skipped, with a message, when that folder is absent.

enum Realworld {
    /// One `github-samples/` file: its body re-serialised, the recorded item count and request URL.
    static func githubSample(_ name: String) throws -> (body: Data, itemCount: Int, url: URL) {
        let data = try Data(contentsOf: RepositoryPaths.realworld.appendingPathComponent("github-samples/\(name)"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let body = try #require(object["body"])
        let count = try #require(object["item_count"] as? Int)
        let request = try #require(object["request"] as? [String: Any])
        let url = try #require((request["url"] as? String).flatMap(URL.init(string:)))
        return (try JSONSerialization.data(withJSONObject: body), count, url)
    }
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
