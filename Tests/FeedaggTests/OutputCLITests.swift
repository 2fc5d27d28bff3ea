import FeedStore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

// Issue 14, output items, through the built binary: hostile remote text never reaches the
// terminal (1), tables in terminal cells and tab-separated when piped (10), next commands that
// work as printed and `show --all` (11), Ctrl-C (12), write errors on standard output (13).

/// A GitHub-like org listing on loopback: `/orgs/acme/repos?per_page=N&page=P`, Link-paginated,
/// `count` repositories named by `name(i)`; requests for pages at or after `gatePage` wait until
/// ``gate`` opens. `/orgs/broken/repos` answers 404 with `brokenMessage` as GitHub's message.
final class ReposAPI: Sendable {
    let count: Int
    let name: @Sendable (Int) -> String
    let language: @Sendable (Int) -> String
    let url: @Sendable (Int) -> String
    let brokenMessage: String
    let gatePage: Int?
    /// A page answered with 410 Gone.
    let failPage: Int?
    let gate = Gate()
    let log = RequestLog()

    init(
        count: Int, gatePage: Int? = nil, failPage: Int? = nil, brokenMessage: String = "Not Found",
        name: @escaping @Sendable (Int) -> String = { "repo-\($0)" },
        language: @escaping @Sendable (Int) -> String = { _ in "Swift" },
        url: @escaping @Sendable (Int) -> String = { "https://github.com/acme/repo-\($0)" }
    ) {
        self.count = count
        self.gatePage = gatePage
        self.failPage = failPage
        self.brokenMessage = brokenMessage
        self.name = name
        self.language = language
        self.url = url
    }

    /// The JSON text of `text` (quoted, escaped).
    static func quoted(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text], options: []), as: UTF8.self)
            .dropFirst().dropLast().description
    }

    func respond(to request: LoopbackRequest) async -> LoopbackResponse {
        log.record(request)
        let json = [(name: "Content-Type", value: "application/json")]
        let query = Dictionary(
            (request.query ?? "").split(separator: "&").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { first, _ in first })
        guard request.path == "/orgs/acme/repos" else {
            return LoopbackResponse(status: 404, headers: json, text: #"{"message":\#(Self.quoted(brokenMessage))}"#)
        }
        let perPage = Int(query["per_page"] ?? "") ?? 30
        let page = Int(query["page"] ?? "") ?? 1
        if let gatePage, page >= gatePage { await gate.wait() }
        if page == failPage { return LoopbackResponse(status: 410, headers: json, text: #"{"message":"Gone"}"#) }
        let last = max(1, (count + perPage - 1) / perPage)
        let ids = Array(1...max(1, count)).prefix(count).dropFirst((page - 1) * perPage).prefix(perPage)
        let body = "[" + ids.map { id in
            // Newest first: repository 1 is the most recently updated.
            let day = String(format: "%02d", 28 - (id % 28))
            let month = String(format: "%02d", 12 - min(11, id / 28))
            return #"{"id":\#(id),"name":\#(Self.quoted(name(id))),"html_url":\#(Self.quoted(url(id))),"#
                + #""owner":{"login":"acme"},"language":\#(Self.quoted(language(id))),"#
                + #""created_at":"2024-\#(month)-\#(day)T00:00:00Z","updated_at":"2024-\#(month)-\#(day)T00:00:00Z"}"#
        }.joined(separator: ",") + "]"
        var links: [String] = []
        if page < last {
            links.append(#"</orgs/acme/repos?per_page=\#(perPage)&page=\#(page + 1)>; rel="next""#)
            links.append(#"</orgs/acme/repos?per_page=\#(perPage)&page=\#(last)>; rel="last""#)
        }
        return LoopbackResponse(
            headers: json + (links.isEmpty ? [] : [(name: "Link", value: links.joined(separator: ", "))]), text: body)
    }

    /// Pages of acme requested so far.
    var pagesRequested: [Int] {
        log.requests.filter { $0.path == "/orgs/acme/repos" }.map { request in
            (request.query ?? "").split(separator: "&").first { $0.hasPrefix("page=") }.flatMap { Int($0.dropFirst(5)) } ?? 1
        }
    }

    /// Serves on loopback while `body` runs; the gate is opened before the server stops.
    func serve<T>(_ body: (String) async throws -> T) async throws -> T {
        let server = try await LoopbackHTTPServer.start { request in await self.respond(to: request) }
        do {
            let result = try await body(server.baseURL)
            gate.open()
            try await server.shutdown()
            return result
        } catch {
            gate.open()
            try? await server.shutdown()
            throw error
        }
    }
}

extension ReposAPI {
    /// Serves the API and pulls its `acme` feed quietly into `s.sqlite` in `folder` (expecting
    /// exit 0), then runs `body` with the configuration and the store's path while it still answers.
    func pulled(into folder: TemporaryFolder, _ body: (_ config: URL, _ db: String) async throws -> Void) async throws {
        let db = folder.url.appendingPathComponent("s.sqlite").path
        try await serve { base in
            let config = try folder.write("feeds.yaml", reposYAML([("acme", "acme")], base: base))
            let pull = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db, "--quiet"])
            #expect(pull.status == 0, "\(pull.summary)")
            try await body(config, db)
        }
    }
}

/// The words of a command line printed for a POSIX shell (plain words and single quotes, as
/// `ShowCommandLine` prints them).
func shellWords(_ line: String) -> [String] {
    var words: [String] = []
    var current = ""
    var inWord = false
    var quoted = false
    for character in line {
        if quoted {
            if character == "'" { quoted = false } else { current.append(character) }
        } else if character == "'" {
            quoted = true
            inWord = true
        } else if character == " " {
            if inWord { words.append(current) }
            current = ""
            inWord = false
        } else {
            current.append(character)
            inWord = true
        }
    }
    if inWord { words.append(current) }
    return words
}

/// A feeds.yaml with one github.repos feed `name` for org `org` at `base`.
func reposYAML(_ feeds: [(name: String, org: String)], base: String, perPage: Int = 20, settings: [String] = []) -> String {
    var lines = settings.isEmpty ? [] : ["settings:"] + settings.map { "  \($0)" }
    lines.append("feeds:")
    for feed in feeds {
        lines += [
            "  - name: \(feed.name)", "    source: github.repos", "    base_url: \(base)", "    org: \(feed.org)",
            "    per_page: \(perPage)",
        ]
    }
    return lines.joined(separator: "\n") + "\n"
}

/// Bytes below 0x20 other than those allowed, and C1 scalars, in `data`.
func controlCharacters(in data: Data, allowing allowed: Set<UInt8> = [0x0A]) -> [String] {
    var found = data.filter { $0 < 0x20 && !allowed.contains($0) }.map { String(format: "0x%02X", $0) }
    found += String(decoding: data, as: UTF8.self).unicodeScalars.filter { (0x7F...0x9F).contains($0.value) }
        .map { String(format: "U+%04X", $0.value) }
    return found
}

@Suite("CLI output: safe text, cells and pipes, next commands, --all, Ctrl-C, write errors")
struct OutputCLITests {
    static let hostile: [String] = [
        "osc\u{1B}]0;pwned window\u{07}title",
        "clear\u{1B}[2Jscreen",
        "bell\u{07}ring",
        "tab\there",
        "carriage\rreturn",
        "c1\u{9B}31mcsi",
        "dcs\u{1B}P1$r\u{1B}\\done",
    ]

    @Test("item 1: hostile titles, summaries, URLs and server messages reach no output as control characters")
    func hostileText() async throws {
        let hostile = Self.hostile
        let api = ReposAPI(
            count: hostile.count, brokenMessage: "gone\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}H",
            name: { hostile[($0 - 1) % hostile.count] }, language: { hostile[($0 + 2) % hostile.count] },
            url: { "https://github.com/acme/\u{1B}[2J\($0)" })
        let folder = try TemporaryFolder("feedagg-hostile")
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite").path
        try await api.serve { base in
            let config = try folder.write("feeds.yaml", reposYAML([("acme", "acme"), ("broken", "broken")], base: base))
            let pull = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db, "--verbose"])
            #expect(pull.status == 3, "\(pull.summary)")
            // The message is shown, without its OSC sequence (payload included) and the rest.
            #expect(pull.stderr.contains("HTTP 404") && pull.stderr.contains("gone"), "\(pull.stderr)")
            #expect(!pull.stderr.contains("owned"), "\(pull.stderr)")
            #expect(controlCharacters(in: pull.standardError).isEmpty, "stderr: \(controlCharacters(in: pull.standardError))")
            // Piped table: tab-separated, so exactly the 4 separators per line survive as tabs.
            #expect(controlCharacters(in: pull.standardOutput, allowing: [0x0A, 0x09]).isEmpty)
            let show = try await TestBinary.runFeedagg(["show", "--config", config.path, "--db", db])
            #expect(show.status == 0, "\(show.summary)")
            #expect(controlCharacters(in: show.standardOutput, allowing: [0x0A, 0x09]).isEmpty, "\(show.stdout.debugDescription)")
            let rows = show.stdout.split(separator: "\n")
            #expect(rows.count == 1 + hostile.count, "\(show.stdout)")
            for row in rows { #expect(row.filter { $0 == "\t" }.count == 4, "\(row.debugDescription)") }
            #expect(show.stdout.contains("oscpwned windowtitle") == false, "the OSC payload is dropped with its sequence")
            #expect(show.stdout.contains("osctitle") && show.stdout.contains("clearscreen") && show.stdout.contains("tab here"))
            #expect(show.stdout.contains("c1csi") && show.stdout.contains("carriage return") && show.stdout.contains("dcsdone"))

            let feeds = try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", db])
            #expect(feeds.status == 0, "\(feeds.summary)")
            #expect(feeds.stdout.contains("gone"), "\(feeds.stdout)")
            #expect(controlCharacters(in: feeds.standardOutput).isEmpty, "\(feeds.stdout.debugDescription)")

            // On a terminal, the same: not one control byte but the line ends.
            let terminal = try TerminalProcess.start(
                try TestBinary.feedagg, arguments: ["show", "--config", config.path, "--db", db, "--wide"],
                environment: TestBinary.cleanEnvironment, columns: 120)
            let shown = try await terminal.wait()
            #expect(shown.status == 0, "\(shown.summary)")
            #expect(controlCharacters(in: shown.standardOutput, allowing: [0x0A, 0x0D]).isEmpty, "\(shown.stdout.debugDescription)")

            // JSON keeps the text exactly, escaped as JSON escapes it.
            let json = try await TestBinary.runFeedagg(["show", "--config", config.path, "--db", db, "--format", "json"])
            let page = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
            let titles = Set((page["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String })
            #expect(titles == Set(hostile))
        }
    }

    @Test("item 10: piped, `table` is untruncated tab-separated rows under a header, the footer on stderr")
    func pipedTable() async throws {
        let long = String(repeating: "a-very-long-repository-name-", count: 10)
        let api = ReposAPI(count: 45, name: { $0 == 3 ? long : "repo-\($0)" })
        let folder = try TemporaryFolder("feedagg-piped")
        defer { folder.remove() }
        try await api.pulled(into: folder) { config, db in
            let show = try await TestBinary.runFeedagg(["show", "--config", config.path, "--db", db])
            let lines = show.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            #expect(lines.first == "DATE\tFEED\tTITLE\tSUMMARY\tURL")
            #expect(lines.count == 21, "\(show.stdout)")
            #expect(lines.contains { $0.contains("\t\(long)\t") }, "the long title is whole")
            #expect(!show.stdout.contains("page 1/3"), "no footer on stdout")
            #expect(show.stderr.contains("page 1/3 · 45 items · 20 per page"), "\(show.stderr)")
            #expect(show.stderr.contains("next: feedagg show --after "), "\(show.stderr)")
            for line in lines.dropFirst() {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                #expect(fields.count == 5, "\(line)")
                #expect(fields.last?.hasPrefix("https://github.com/acme/") == true)
            }
        }
    }

    @Test("item 10: on a terminal, lines fit its width in cells, the title grows with it, --wide shows whole URLs")
    func terminalTable() async throws {
        let long = "日本語のとても長いリポジトリ名-" + String(repeating: "x", count: 100)
        let api = ReposAPI(count: 5, name: { $0 == 1 ? long : "repo-\($0)" })
        let folder = try TemporaryFolder("feedagg-tty")
        defer { folder.remove() }
        try await api.pulled(into: folder) { config, db in
            func show(columns: Int, _ extra: [String] = []) async throws -> [String] {
                let process = try TerminalProcess.start(
                    try TestBinary.feedagg, arguments: ["show", "--config", config.path, "--db", db] + extra,
                    environment: TestBinary.cleanEnvironment, columns: columns)
                let output = try await process.wait()
                #expect(output.status == 0, "\(output.summary)")
                return output.stdout.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
            }
            let narrow = try await show(columns: 80)
            #expect(narrow.first?.hasPrefix("DATE") == true && narrow.first?.contains("\t") == false, "\(narrow)")
            #expect(narrow.contains("page 1/1 · 5 items · 20 per page"), "the footer is on the terminal: \(narrow)")
            for line in narrow { #expect(TerminalText.cellWidth(line) <= 80, "\(TerminalText.cellWidth(line)) cells: \(line)") }
            let longRow = try #require(narrow.first { $0.contains("日本語") })
            #expect(longRow.contains("…") && !longRow.contains(long))

            let wide = try await show(columns: 250)
            for line in wide { #expect(TerminalText.cellWidth(line) <= 250, "\(line)") }
            let wideRow = try #require(wide.first { $0.contains("日本語") })
            #expect(wideRow.contains(long), "at 250 columns the whole title fits: \(wideRow)")

            let urls = try await show(columns: 80, ["--wide"])
            #expect(urls.first?.contains("URL") == true)
            #expect(urls.contains { $0.contains("https://github.com/acme/repo-2") }, "\(urls)")
        }
    }

    /// The next command of `output`'s footer, as arguments after `feedagg`.
    static func nextArguments(_ footer: String) throws -> [String] {
        let line = try #require(footer.split(separator: "\n").first { $0.hasPrefix("next: ") }, "no next line in:\n\(footer)")
        let words = shellWords(String(line.dropFirst("next: ".count)))
        try #require(words.first == "feedagg", "\(words)")
        return Array(words.dropFirst())
    }

    @Test("item 11: the printed next command works as printed, page after page, with --feed and --per-page kept")
    func nextCommandWorks() async throws {
        let api = ReposAPI(count: 30)
        let folder = try TemporaryFolder("feedagg next command")  // a space in every path: quoting matters
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("my store.sqlite").path
        try await api.serve { base in
            let config = try folder.write(
                "feeds.yaml", reposYAML([("acme", "acme"), ("acme-again", "acme")], base: base, perPage: 30))
            let pull = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db, "--per-page", "7"])
            #expect(pull.status == 0, "\(pull.summary)")
            let everything = try await TestBinary.runFeedagg(
                ["show", "--config", config.path, "--db", db, "--format", "jsonl", "--per-page", "100", "--feed", "acme"])
            let titles = everything.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["title"] as? String
            }
            try #require(titles.count == 30)

            // pull's footer: the next page of what pull printed.
            let fromPull = try Self.nextArguments(pull.stderr)
            #expect(fromPull.contains("--db") && fromPull.contains(db) && fromPull.contains("--per-page"), "\(fromPull)")
            let second = try await TestBinary.runFeedagg(fromPull)
            #expect(second.status == 0, "\(second.summary)")
            #expect(second.stdout.split(separator: "\n").count == 1 + 7)

            // show --feed acme --per-page 4: follow the next commands to the end, literally.
            var arguments = ["show", "--config", config.path, "--db", db, "--feed", "acme", "--per-page", "4"]
            var seen: [String] = []
            for round in 0..<20 {
                let output = try await TestBinary.runFeedagg(arguments)
                #expect(output.status == 0, "round \(round): \(output.summary)")
                seen += output.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: "\t")[2]) }
                if round > 0 {
                    #expect(!output.stderr.contains("page 0/"), "\(output.stderr)")
                    #expect(output.stderr.contains("items shown · 30 items in all · 4 per page"), "\(output.stderr)")
                }
                guard output.stderr.contains("next: ") else { break }
                arguments = try Self.nextArguments(output.stderr)
                #expect(arguments.contains("--feed") && arguments.contains("acme") && arguments.contains("4"))
            }
            #expect(seen == titles, "following the next commands lists every item once, in order")
        }
    }

    @Test("item 11: after `pull --replay`, the store is kept in the cache dir and the next command pages it")
    func nextAfterReplay() async throws {
        let cache = try TemporaryFolder("feedagg-replay-cache")
        defer { cache.remove() }
        var environment = TestBinary.cleanEnvironment
        environment["XDG_CACHE_HOME"] = cache.url.path
        let pull = try await TestBinary.runFeedagg(
            ["pull", "--replay", "Fixtures", "--config", "feeds.yaml"], environment: environment,
            currentDirectory: RepositoryPaths.root)
        #expect(pull.status == 0, "\(pull.summary)")
        let next = try Self.nextArguments(pull.stderr)
        let db = try #require(next.firstIndex(of: "--db").map { next[$0 + 1] }, "\(next)")
        #expect(db.hasPrefix(cache.url.appendingPathComponent("feedagg/replay-").path), "\(db)")
        #expect(FileManager.default.fileExists(atPath: db))
        let second = try await TestBinary.runFeedagg(next, environment: environment, currentDirectory: RepositoryPaths.root)
        #expect(second.status == 0, "\(second.summary)")
        let page2 = try await TestBinary.runFeedagg(
            ["show", "--db", db, "--page", "2"], environment: environment, currentDirectory: RepositoryPaths.root)
        #expect(second.stdout == page2.stdout, "the next command prints page 2")
        #expect(second.stdout.split(separator: "\n").count == 21)
    }

    @Test("item 11: `show --all` streams every page: table rows, one JSON document, JSONL lines")
    func showAll() async throws {
        let api = ReposAPI(count: 45)
        let folder = try TemporaryFolder("feedagg-all")
        defer { folder.remove() }
        try await api.pulled(into: folder) { config, db in
            let common = ["show", "--config", config.path, "--db", db, "--all", "--per-page", "4"]
            let table = try await TestBinary.runFeedagg(common)
            #expect(table.status == 0, "\(table.summary)")
            let rows = table.stdout.split(separator: "\n")
            #expect(rows.count == 1 + 45 && rows.first?.hasPrefix("DATE\t") == true)
            #expect(rows.dropFirst().allSatisfy { !$0.hasPrefix("DATE") }, "one header")
            #expect(table.stderr == "45 items\n", "\(table.stderr)")

            let json = try await TestBinary.runFeedagg(common + ["--format", "json"])
            let document = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
            #expect(document["total_items"] as? Int == 45)
            let ids = (document["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(ids.count == 45 && Set(ids).count == 45)

            let jsonl = try await TestBinary.runFeedagg(common + ["--format", "jsonl"])
            let lines = jsonl.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
            }
            #expect(lines == ids)

            let grep = try await ChildProcess.run(
                URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", #""$0" "$@" | grep -c 'repo-4'"#, try TestBinary.feedagg.path] + common,
                environment: TestBinary.cleanEnvironment)
            #expect(grep.stdout == "7\n", "repo-4 and repo-40…45 (\(grep.summary))")

            let tooMuch = try await TestBinary.runFeedagg(common + ["--page", "2"])
            #expect(tooMuch.status == 2, "\(tooMuch.summary)")
        }
    }

    @Test("item 13: a write error on stdout exits 1 with a message; a reader that leaves early is no error")
    func writeErrors() async throws {
        let api = ReposAPI(count: 45)
        let folder = try TemporaryFolder("feedagg-full")
        defer { folder.remove() }
        let db = folder.url.appendingPathComponent("s.sqlite").path
        try await api.serve { base in
            let config = try folder.write("feeds.yaml", reposYAML([("acme", "acme")], base: base))
            let binary = try TestBinary.feedagg.path
            let full = try await ChildProcess.run(
                URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", #"exec "$0" "$@" > /dev/full"#, binary, "pull", "--config", config.path, "--db", db, "--quiet"],
                environment: TestBinary.cleanEnvironment)
            #expect(full.status == 1, "\(full.summary)")
            #expect(full.stderr == "feedagg: cannot write to standard output: No space left on device\n", "\(full.stderr)")
            for format in ["table", "json", "jsonl"] {
                let show = try await ChildProcess.run(
                    URL(fileURLWithPath: "/bin/sh"),
                    arguments: ["-c", #"exec "$0" "$@" > /dev/full"#, binary, "show", "--config", config.path, "--db", db, "--all", "--format", format],
                    environment: TestBinary.cleanEnvironment)
                #expect(show.status == 1 && show.stderr.contains("cannot write to standard output"), "\(format): \(show.summary)")
            }
            // `| head -1`: the reader is gone; feedagg ends quietly (done, or SIGPIPE: 141), never 1.
            let head = try await ChildProcess.run(
                URL(fileURLWithPath: "/bin/bash"),
                arguments: [
                    "-c", #""$0" "$@" | head -n 1 >/dev/null; echo "status ${PIPESTATUS[0]}""#, binary, "show", "--config",
                    config.path, "--db", db, "--all", "--per-page", "1",
                ],
                environment: TestBinary.cleanEnvironment)
            #expect(head.stdout == "status 0\n" || head.stdout == "status 141\n", "\(head.summary)")
            #expect(!head.stderr.contains("cannot write"), "\(head.stderr)")
        }
    }

    @Test("item 15: '1 feed OK', '1 item', '1 page', '1 request'; a failed feed gets no max_pages note")
    func pluralsAndNotes() async throws {
        let folder = try TemporaryFolder("feedagg-plurals")
        defer { folder.remove() }
        try await ReposAPI(count: 1).serve { base in
            let config = try folder.write("feeds.yaml", reposYAML([("acme", "acme")], base: base))
            let validate = try await TestBinary.runFeedagg(["validate", "--config", config.path])
            #expect(validate.stdout.hasPrefix("\(config.path): 1 feed OK\n"), "\(validate.summary)")
            let pull = try await TestBinary.runFeedagg(
                ["pull", "--config", config.path, "--db", folder.url.appendingPathComponent("a.sqlite").path])
            #expect(pull.stderr.contains("✓ acme (github.repos): 1 item (1 new, 0 updated), 1 page, 1 request, "), "\(pull.stderr)")
            #expect(pull.stderr.contains("page 1/1 · 1 item · 20 per page"), "\(pull.stderr)")
        }
        for failing in [nil, 2] {
            try await ReposAPI(count: 100, failPage: failing).serve { base in
                let config = try folder.write(
                    "capped.yaml", reposYAML([("acme", "acme")], base: base, perPage: 10) + "    max_pages: 3\n")
                let pull = try await TestBinary.runFeedagg(
                    ["pull", "--config", config.path, "--db", folder.url.appendingPathComponent("b\(failing ?? 0).sqlite").path])
                if failing == nil {
                    #expect(pull.status == 0, "\(pull.summary)")
                    #expect(pull.stderr.contains("note: feed 'acme': stopped at max_pages = 3"), "\(pull.stderr)")
                } else {
                    #expect(pull.status == 4, "\(pull.summary)")
                    #expect(pull.stderr.contains("HTTP 410"), "\(pull.stderr)")
                    #expect(!pull.stderr.contains("max_pages"), "a failed feed stopped at its failure:\n\(pull.stderr)")
                }
            }
        }
    }
}
