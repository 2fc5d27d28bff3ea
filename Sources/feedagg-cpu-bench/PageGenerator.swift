import DeterministicRandom
import Foundation
import FeedCore

/// Writes deterministic page files of the shapes `../shared/bench/ghserver.py` serves: GitHub
/// list-repos objects with the full field set (~5.6 KB each, owner embedded) and 500px photos
/// in their `{current_page, total_pages, total_items, photos}` envelope.
///
/// The values come from a fixed-seed generator, so every run decodes the same bytes. Some
/// descriptions carry JSON escapes (`\"`, `\n`, `\u00e9`, a surrogate pair) and raw UTF-8, as
/// real payloads do, so the decoders' string paths are exercised too.
struct PageGenerator {
    /// SplitMix64: small, fast, deterministic.
    typealias Random = SplitMix

    static let api = "https://api.github.com"
    static let web = "https://github.com"
    static let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo",
        "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor",
        "whiskey", "xray", "yankee", "zulu", "swift", "kernel", "parser", "stream", "cache", "engine",
    ]
    static let languages = ["Swift", "Python", "Go", "Rust", "C", "C++", "JavaScript", "TypeScript", "Ruby", "null"]
    static let licenses: [(String, String, String)?] = [
        ("mit", "MIT License", "MIT"), ("apache-2.0", "Apache License 2.0", "Apache-2.0"),
        ("bsd-3-clause", "BSD 3-Clause \"New\" or \"Revised\" License", "BSD-3-Clause"), nil,
    ]
    /// Description fragments with escapes and non-ASCII text.
    static let flourishes = [
        #" \"quoted\""#, #" line\nbreak"#, #" caf\u00e9"#, " café", #" \ud83d\ude80 rocket"#, " naïve — résumé", #" a\/b"#,
    ]

    let epoch = 1_262_304_000  // 2010-01-01T00:00:00Z

    /// `seconds` since 1970 as `YYYY-MM-DDTHH:MM:SS` + `offset` (``ISO8601``'s civil-from-days, no Calendar).
    func iso(_ seconds: Int, offset: String = "Z") -> String {
        let rest = seconds % 86400
        let (year, month, day) = ISO8601.civilFromDays(seconds / 86400)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, rest / 3600, rest % 3600 / 60, rest % 60) + offset
    }

    func nodeID(_ prefix: String, _ n: Int) -> String {
        var text = Data("\(prefix)\(n)".utf8).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    func user(_ login: String, _ uid: Int, type: String) -> String {
        let u = "\(Self.api)/users/\(login)"
        return """
            {"login":"\(login)","id":\(uid),"node_id":"\(nodeID("04:User", uid))","avatar_url":"https://avatars.githubusercontent.com/u/\(uid)?v=4",\
            "gravatar_id":"","url":"\(u)","html_url":"\(Self.web)/\(login)","followers_url":"\(u)/followers",\
            "following_url":"\(u)/following{/other_user}","gists_url":"\(u)/gists{/gist_id}",\
            "starred_url":"\(u)/starred{/owner}{/repo}","subscriptions_url":"\(u)/subscriptions",\
            "organizations_url":"\(u)/orgs","repos_url":"\(u)/repos","events_url":"\(u)/events{/privacy}",\
            "received_events_url":"\(u)/received_events","type":"\(type)","user_view_type":"public","site_admin":false}
            """
    }

    func description(_ rnd: inout Random, words: Int) -> String {
        var parts = (0..<words).map { _ in rnd.pick(Self.words) }
        if let first = parts.first { parts[0] = first.prefix(1).uppercased() + first.dropFirst() }
        var text = parts.joined(separator: " ")
        if rnd.chance(0.3) { text += rnd.pick(Self.flourishes) }
        return text
    }

    /// One repository object, as `_repo` in ghserver.py builds it.
    func repository(_ rnd: inout Random, org: String, owner: String, index: Int) -> String {
        let rid = 10_000_000 + 1 + rnd.below(100_000_000)
        let name = "\(rnd.pick(Self.words))-\(rnd.pick(Self.words))-\(String(format: "%05d", index))"
        let full = "\(org)/\(name)"
        let u = "\(Self.api)/repos/\(full)"
        let created = epoch + rnd.below(100_000_000)
        let updated = created + rnd.below(100_000_000)
        let pushed = updated - rnd.below(1_000_000)
        let language = rnd.pick(Self.languages)
        let forks = rnd.below(5000), stars = rnd.below(50000), issues = rnd.below(500)
        let license = rnd.pick(Self.licenses)
        let licenseJSON = license.map { key, name, spdx in
            #"{"key":"\#(key)","name":"\#(name.replacingOccurrences(of: "\"", with: "\\\""))","spdx_id":"\#(spdx)","url":"\#(Self.api)/licenses/\#(key)","node_id":"\#(nodeID("07:License", key.utf8.count))"}"#
        } ?? "null"
        let topics = Set((0..<rnd.below(5)).map { _ in rnd.pick(Self.words) }).sorted().map { "\"\($0)\"" }
        let homepage = rnd.chance(0.3) ? "\"https://\(name).example.org\"" : "null"
        return """
            {"id":\(rid),"node_id":"\(nodeID("010:Repository", rid))","name":"\(name)","full_name":"\(full)",\
            "private":false,"owner":\(owner),"html_url":"\(Self.web)/\(full)",\
            "description":"\(description(&rnd, words: 3 + rnd.below(9)))","fork":\(rnd.chance(0.1)),"url":"\(u)",\
            "forks_url":"\(u)/forks","keys_url":"\(u)/keys{/key_id}","collaborators_url":"\(u)/collaborators{/collaborator}",\
            "teams_url":"\(u)/teams","hooks_url":"\(u)/hooks","issue_events_url":"\(u)/issues/events{/number}",\
            "events_url":"\(u)/events","assignees_url":"\(u)/assignees{/user}","branches_url":"\(u)/branches{/branch}",\
            "tags_url":"\(u)/tags","blobs_url":"\(u)/git/blobs{/sha}","git_tags_url":"\(u)/git/tags{/sha}",\
            "git_refs_url":"\(u)/git/refs{/sha}","trees_url":"\(u)/git/trees{/sha}","statuses_url":"\(u)/statuses/{sha}",\
            "languages_url":"\(u)/languages","stargazers_url":"\(u)/stargazers","contributors_url":"\(u)/contributors",\
            "subscribers_url":"\(u)/subscribers","subscription_url":"\(u)/subscription","commits_url":"\(u)/commits{/sha}",\
            "git_commits_url":"\(u)/git/commits{/sha}","comments_url":"\(u)/comments{/number}",\
            "issue_comment_url":"\(u)/issues/comments{/number}","contents_url":"\(u)/contents/{+path}",\
            "compare_url":"\(u)/compare/{base}...{head}","merges_url":"\(u)/merges","archive_url":"\(u)/{archive_format}{/ref}",\
            "downloads_url":"\(u)/downloads","issues_url":"\(u)/issues{/number}","pulls_url":"\(u)/pulls{/number}",\
            "milestones_url":"\(u)/milestones{/number}","notifications_url":"\(u)/notifications{?since,all,participating}",\
            "labels_url":"\(u)/labels{/name}","releases_url":"\(u)/releases{/id}","deployments_url":"\(u)/deployments",\
            "created_at":"\(iso(created))","updated_at":"\(iso(updated))","pushed_at":"\(iso(pushed))",\
            "git_url":"git://github.com/\(full).git","ssh_url":"git@github.com:\(full).git","clone_url":"\(Self.web)/\(full).git",\
            "svn_url":"\(Self.web)/\(full)","homepage":\(homepage),"size":\(rnd.below(200_000)),"stargazers_count":\(stars),\
            "watchers_count":\(stars),"language":\(language == "null" ? "null" : "\"\(language)\""),"has_issues":true,\
            "has_projects":true,"has_downloads":true,"has_wiki":\(rnd.chance(0.5)),"has_pages":false,"has_discussions":false,\
            "forks_count":\(forks),"mirror_url":null,"archived":\(rnd.chance(0.05)),"disabled":false,"open_issues_count":\(issues),\
            "license":\(licenseJSON),"allow_forking":true,"is_template":false,"web_commit_signoff_required":false,\
            "topics":[\(topics.joined(separator: ","))],"visibility":"public","forks":\(forks),"open_issues":\(issues),\
            "watchers":\(stars),"default_branch":"main",\
            "permissions":{"admin":false,"maintain":false,"push":false,"triage":false,"pull":true}}
            """
    }

    /// One 500px photo object, as `photos` in ghserver.py builds it.
    func photo(_ rnd: inout Random) -> String {
        let pid = 100_000_000 + rnd.below(100_000_000)
        let uid = 1000 + rnd.below(1_000_000)
        let uname = "\(rnd.pick(Self.words))\(uid)"
        let created = epoch + rnd.below(400_000_000)
        let url = "https://drscdn.500px.org/photo/\(pid)/q%3D80_m%3D2000/v2?sig=\(String(rnd.next(), radix: 16))"
        let title = (0..<(1 + rnd.below(4))).map { _ in rnd.pick(Self.words).capitalized }.joined(separator: " ")
        let camera = rnd.pick(["\"Canon EOS 5D Mark IV\"", "\"NIKON D850\"", "\"ILCE-7RM3\"", "null"])
        let lens = rnd.pick(["\"EF24-70mm f/2.8L II USM\"", "\"FE 85mm F1.8\"", "null"])
        let capitalized = uname.prefix(1).uppercased() + uname.dropFirst()
        let rating = Double(500 + rnd.below(500)) / 10
        return """
            {"id":\(pid),"user_id":\(uid),"name":"\(title)","description":"\(description(&rnd, words: rnd.below(20)))",\
            "camera":\(camera),"lens":\(lens),"focal_length":"\(rnd.pick([24, 35, 50, 85, 200]))",\
            "iso":"\(rnd.pick([100, 200, 400, 800, 3200]))","shutter_speed":"\(rnd.pick(["1/250", "1/1000", "1/60", "30"]))",\
            "aperture":"\(rnd.pick(["1.8", "2.8", "8", "11"]))","times_viewed":\(rnd.below(1_000_000)),"rating":\(rating),\
            "status":1,"created_at":"\(iso(created, offset: "-05:00"))","category":\(rnd.below(30)),"location":null,\
            "latitude":\(Double(rnd.below(160_000_000)) / 1_000_000 - 80),"longitude":\(Double(rnd.below(360_000_000)) / 1_000_000 - 180),\
            "taken_at":"\(iso(created - 86400, offset: "-05:00"))","for_sale":false,"width":\(rnd.pick([6000, 4000, 2048])),\
            "height":\(rnd.pick([4000, 2667, 1365])),"votes_count":\(rnd.below(5000)),"favorites_count":\(rnd.below(500)),\
            "comments_count":\(rnd.below(200)),"nsfw":false,"highest_rating":\(Double(800 + rnd.below(200)) / 10),\
            "image_url":"\(url)","image_format":"jpeg","images":[{"size":2,"url":"\(url)","https_url":"\(url)","format":"jpeg"}],\
            "user":{"id":\(uid),"username":"\(uname)","firstname":"\(capitalized)","lastname":"","city":"","country":"",\
            "fullname":"\(capitalized)","userpic_url":"https://drscdn.500px.org/user_avatar/\(uid)/q%3D85_w%3D300_h%3D300/v2",\
            "upgrade_status":\(rnd.below(3)),"followers_count":\(rnd.below(10_000)),"affection":\(rnd.below(100_000))}}
            """
    }

    /// Writes `orgs` × `pagesPerOrg` repository pages and `photoPages` photo pages of `perPage`
    /// items into `directory` (`repos-<org>-<page>.json`, `photos-<page>.json`).
    func write(to directory: URL, orgs: Int, pagesPerOrg: Int, photoPages: Int, perPage: Int) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for o in 1...max(1, orgs) where orgs > 0 {
            let org = "org\(o)"
            var rnd = Random(state: UInt64(o) &* 0x1234_5678_9ABC)
            let owner = user(org, 1_000_000 + o * 7919, type: "Organization")
            for p in 1...max(1, pagesPerOrg) where pagesPerOrg > 0 {
                let repos = (0..<perPage).map { i in
                    repository(&rnd, org: org, owner: owner, index: (p - 1) * perPage + i)
                }
                let body = "[" + repos.joined(separator: ",") + "]"
                try Data(body.utf8).write(to: directory.appendingPathComponent(Self.repoFile(org: o, page: p)))
            }
        }
        var rnd = Random(state: 42)
        for p in 1...max(1, photoPages) where photoPages > 0 {
            let photos = (0..<perPage).map { _ in photo(&rnd) }
            let body = #"{"feature":"editors","filters":{},"current_page":\#(p),"total_pages":\#(photoPages),"total_items":\#(photoPages * perPage),"photos":["# + photos.joined(separator: ",") + "]}"
            try Data(body.utf8).write(to: directory.appendingPathComponent(Self.photoFile(page: p)))
        }
    }

    static func repoFile(org: Int, page: Int) -> String { String(format: "repos-org%03d-%04d.json", org, page) }
    static func photoFile(page: Int) -> String { String(format: "photos-%04d.json", page) }
}
