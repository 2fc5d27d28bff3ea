import FeedCore
import Foundation
public import LoopbackServer

/// GitHub-style repository list pages (`/orgs/{org}/repos`) for scripted loopback servers.
public enum ReposPages {
    /// Page `page` of the repositories `ids`, `per_page` of the request at a time (30 when absent),
    /// with `Link` next/last like GitHub's on `base` (the server's base URL).
    public static func page(_ request: LoopbackRequest, ids: ClosedRange<Int>, page: Int, base: String) -> LoopbackResponse {
        let size = request.queryValues["per_page"].flatMap(Int.init) ?? 30
        let all = Array(ids)
        let pages = max(1, (all.count + size - 1) / size)
        let slice = all.dropFirst((page - 1) * size).prefix(size)
        let body = "[" + slice.map(repoJSON).joined(separator: ",") + "]"
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json; charset=utf-8")]
        let target = "\(base)\(request.path)?per_page=\(size)"
        var links: [String] = []
        if page < pages { links.append("<\(target)&page=\(page + 1)>; rel=\"next\"") }
        if pages > 1 { links.append("<\(target)&page=\(pages)>; rel=\"last\"") }
        if !links.isEmpty { headers.append(("Link", links.joined(separator: ", "))) }
        return LoopbackResponse(status: 200, headers: headers, text: body)
    }

    /// One repository object: `repo-<id>` of `acme`, updated `id` minutes before 2023-11-14 22:13:20 UTC.
    public static func repoJSON(_ id: Int) -> String {
        let updated = ISO8601.string(from: Date(timeIntervalSince1970: Double(1_700_000_000 - id * 60)))
        return #"{"id":\#(id),"name":"repo-\#(id)","html_url":"https://github.com/acme/repo-\#(id)","updated_at":"\#(updated)"}"#
    }
}
