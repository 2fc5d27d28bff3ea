import Foundation
import LoopbackServer
import Synchronization

/// The API `feedagg serve` pulls in these tests: two declarative (`source: http`) feeds on a
/// loopback server, `repos` (a JSON array: name, link, description, owner with avatar) and
/// `photos` (`{"photos": […]}` with an image), plus the avatars and photos themselves as small SVGs
/// so the page has real images to show, and a control route that adds an item.
///
/// Among the repos: hostile titles (`<img src=x onerror=alert(1)>`), owners and descriptions with
/// `javascript:` links, one among the newest (rendered by the server) and one further down
/// (rendered by app.js).
final class PageAPI: Sendable {
    /// One item of either feed.
    struct Item: Sendable {
        var number: Int
        var title: String
        var link: String
        var summary: String
        var owner: String
        /// The owner's avatar file (`/avatar/<key>.svg`) and profile page name.
        var ownerKey: String
        var date: Date
        var photo: Bool
    }

    struct State: Sendable {
        var repos: [Item] = []
        var photos: [Item] = []
        var added = 0
        /// How long the next answer of a feed waits (makes a refresh slow enough to show progress).
        var slowNext: Duration?
        var requests: [String] = []
    }

    let state = Mutex(State())
    /// The newest item's date; item `n` is `n` hours older.
    static let newest = Date(timeIntervalSince1970: 1_764_000_000)
    static let hostileTitle = "<img src=x onerror=alert(1)>"
    static let hostileTitleLater = "<img src=x onerror=alert(2)><script>alert(3)</script>"
    /// The owner and description of the hostile items.
    static let hostileOwner = "<b onmouseover=alert(4)>mallory</b>"
    static let hostileSummary = "\"><svg onload=alert(5)>"

    /// The number of the second hostile item (a repo, two thirds down the stream).
    static func laterHostile(count: Int) -> Int { (count * 2 / 3) | 1 }

    /// `count` items in all: every fourth is a photo, the rest repos; item 2 and item
    /// ``laterHostile(count:)`` are hostile.
    init(count: Int) {
        state.withLock { state in
            for number in 1...count {
                let hostile = number == 2 ? Self.hostileTitle : number == Self.laterHostile(count: count) ? Self.hostileTitleLater : nil
                let photo = number % 4 == 0
                let item = Item(
                    number: number,
                    title: hostile ?? (photo ? "Photo \(number): \(Self.places[number % Self.places.count])" : "repo-\(number)"),
                    link: hostile != nil ? "javascript:alert(\(number))" : "https://example.com/\(photo ? "photo" : "repo")/\(number)",
                    summary: hostile != nil ? Self.hostileSummary
                        : photo ? "" : "\(Self.topics[number % Self.topics.count]) (item \(number))",
                    owner: hostile != nil ? Self.hostileOwner : Self.owners[number % Self.owners.count],
                    ownerKey: hostile != nil ? "mallory" : Self.owners[number % Self.owners.count],
                    date: Self.newest.addingTimeInterval(-3600 * Double(number)), photo: photo)
                if photo { state.photos.append(item) } else { state.repos.append(item) }
            }
        }
    }

    /// Adds a repo newer than every item; the next answer of a feed waits `slow`. Returns its number.
    @discardableResult
    func addNewest(slow: Duration?) -> Int {
        state.withLock { state in
            state.added += 1
            let number = 1000 + state.added
            state.repos.insert(
                Item(
                    number: number, title: "fresh-repo-\(state.added)", link: "https://example.com/repo/\(number)",
                    summary: "Added during the test", owner: "newcomer", ownerKey: "newcomer",
                    date: Self.newest.addingTimeInterval(3600 * Double(state.added)), photo: false),
                at: 0)
            state.slowNext = slow
            return number
        }
    }

    /// The feeds.yaml declaring both feeds against `base`.
    static func feedsYAML(base: String) -> String {
        """
        settings:
          min_refresh: 0   # the tests refresh right after the pull that filled the store
        feeds:
          - name: repos
            source: http
            base_url: \(base)
            url: "{+base_url}/repos"
            items: "$"
            fields:
              id: "$.id"
              title: "$.name"
              url: "$.html_url"
              summary: "$.description"
              updated: "$.updated_at"
              author: "$.owner.login"
              author_url: "$.owner.html_url"
              avatar: "$.owner.avatar_url"
          - name: photos
            source: http
            base_url: \(base)
            url: "{+base_url}/photos"
            items: "$.photos"
            fields:
              id: "$.id"
              title: "$.name"
              url: "$.url"
              image: "$.image_url"
              published: "$.created_at"
              author: "$.user.fullname"
              avatar: "$.user.avatar"

        """
    }

    func handle(_ request: LoopbackRequest) async -> LoopbackResponse {
        let path = request.path
        let (snapshot, delay): (State, Duration?) = state.withLock { state in
            state.requests.append("\(request.method) \(path)")
            var delay: Duration? = nil
            if path == "/repos" || path == "/photos", let slow = state.slowNext {
                delay = slow
                if path == "/repos" { state.slowNext = nil }
            }
            return (state, delay)
        }
        switch (request.method, path) {
        case ("POST", "/control/add"):
            let number = addNewest(slow: .milliseconds(1500))
            return json("{\"id\":\"repos:\(number)\",\"number\":\(number)}")
        case ("GET", "/repos"):
            var response = json(Self.array(snapshot.repos.map { repoJSON($0) }))
            response.delay = delay
            return response
        case ("GET", "/photos"):
            var response = json("{\"photos\":" + Self.array(snapshot.photos.map { photoJSON($0) }) + "}")
            response.delay = delay
            return response
        case ("GET", _) where path.hasPrefix("/avatar/") || path.hasPrefix("/image/"):
            let name = path.split(separator: "/").last.map(String.init) ?? ""
            let seed = Int(name.prefix { $0.isNumber }) ?? name.unicodeScalars.reduce(0) { $0 + Int($1.value) }
            let svg = path.hasPrefix("/avatar/") ? Self.avatarSVG(seed) : Self.photoSVG(seed)
            return LoopbackResponse(status: 200, headers: [("Content-Type", "image/svg+xml")], body: Array(svg.utf8))
        default:
            return LoopbackResponse(status: 404, headers: [("Content-Type", "text/plain")], body: Array("no route \(path)".utf8))
        }
    }

    // MARK: - JSON

    private func json(_ text: String) -> LoopbackResponse {
        LoopbackResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
    }

    private static func array(_ objects: [String]) -> String { "[" + objects.joined(separator: ",") + "]" }

    private static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        let array = String(decoding: data, as: UTF8.self)
        return String(array.dropFirst().dropLast())
    }

    private static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    private func repoJSON(_ item: Item) -> String {
        """
        {"id":\(item.number),"name":\(Self.quoted(item.title)),"html_url":\(Self.quoted(item.link)),\
        "description":\(Self.quoted(item.summary)),"updated_at":"\(Self.iso(item.date))",\
        "owner":{"login":\(Self.quoted(item.owner)),"html_url":"https://example.com/\(item.ownerKey)",\
        "avatar_url":"/avatar/\(item.ownerKey).svg"}}
        """
    }

    private func photoJSON(_ item: Item) -> String {
        """
        {"id":\(item.number),"name":\(Self.quoted(item.title)),"url":\(Self.quoted(item.link)),\
        "image_url":"/image/\(item.number).svg","created_at":"\(Self.iso(item.date))",\
        "user":{"fullname":\(Self.quoted(item.owner)),"avatar":"/avatar/\(item.ownerKey).svg"}}
        """
    }

    // MARK: - Images

    static let owners = ["ada", "grace", "linus", "margaret", "ken", "barbara"]
    static let places = ["Lofoten at dawn", "Kyoto, Gion", "Atacama night sky", "Isle of Skye", "Lisbon trams", "Dolomites"]
    static let topics = [
        "A fast, friendly HTTP server", "Typed configuration for Swift services", "Feed reader for the terminal",
        "Incremental SQLite backups", "Pagination strategies, composed", "A tiny property-based testing library",
    ]
    private static let palette = ["#e76f51", "#2a9d8f", "#e9c46a", "#264653", "#8ab17d", "#6d597a", "#457b9d"]

    static func avatarSVG(_ seed: Int) -> String {
        let color = palette[seed % palette.count]
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="48" height="48"><rect width="48" height="48" fill="\(color)"/>\
            <circle cx="24" cy="19" r="9" fill="#fff" opacity=".85"/><path d="M8 44 C10 30 38 30 40 44Z" fill="#fff" opacity=".85"/></svg>
            """
    }

    static func photoSVG(_ seed: Int) -> String {
        let from = palette[seed % palette.count]
        let to = palette[(seed + 3) % palette.count]
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="960" height="540"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">\
            <stop offset="0" stop-color="\(from)"/><stop offset="1" stop-color="\(to)"/></linearGradient></defs>\
            <rect width="960" height="540" fill="url(#g)"/><circle cx="700" cy="150" r="80" fill="#fff" opacity=".35"/>\
            <path d="M0 540 L300 290 L480 440 L660 320 L960 540Z" fill="#000" opacity=".25"/></svg>
            """
    }
}

extension PageAPI {
    /// The control route that adds a new newest item (``addNewest(slow:)``, 1.5 s slow).
    func controlURL(_ server: LoopbackHTTPServer) -> String { server.baseURL + "/control/add" }
}
