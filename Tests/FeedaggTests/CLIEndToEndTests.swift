import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Testing

// The built `feedagg` binary, run as a user runs it: a temporary feeds.yaml whose base_url points
// at a bench server (../shared/bench/ghserver.py) or at a scripted loopback server, its standard
// output parsed, its standard error and exit status checked.

/// Runs `feedagg` with `arguments` in `folder` (or the repository root). With a folder, the
/// default store lives in it (`XDG_DATA_HOME=folder/xdg`), so tests never share a store.
private func feedagg(
    _ arguments: [String], in folder: URL? = nil, environment: [String: String] = TestBinary.cleanEnvironment
) async throws -> ProcessOutput {
    var environment = environment
    if let folder { environment["XDG_DATA_HOME"] = folder.appendingPathComponent("xdg").path }
    return try await TestBinary.runFeedagg(arguments, environment: environment, currentDirectory: folder)
}

/// Parses `--format json` output.
private func jsonPage(_ output: ProcessOutput) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: output.standardOutput)
    return try #require(object as? [String: Any], "stdout is not a JSON object:\n\(output.summary)")
}

/// The items of a parsed page.
private func items(_ page: [String: Any]) throws -> [[String: Any]] {
    try #require(page["items"] as? [[String: Any]], "page has no items array")
}

/// A feeds.yaml for the bench server at `base`: feeds are `(name, source, extra lines)`.
private func feedsYAML(base: URL, _ feeds: [(String, String, [String])], settings: [String] = []) -> String {
    var lines: [String] = []
    if !settings.isEmpty { lines += ["settings:"] + settings.map { "  \($0)" } }
    lines.append("feeds:")
    for (name, source, extra) in feeds {
        lines += ["  - name: \(name)", "    source: \(source)", "    base_url: \(base.absoluteString)"]
        lines += extra.map { "    \($0)" }
    }
    return lines.joined(separator: "\n") + "\n"
}

/// The bench server's org for these tests: 45 repositories (3 pages of 20), 12 public members.
private let acme = BenchServer.Options(orgs: [.init("acme", repos: 45, members: 12)], photos: 30)

private let acmeFeeds: [(String, String, [String])] = [
    ("acme-repos", "github.repos", ["org: acme", "per_page: 20"]),
    ("acme-members", "github.members", ["org: acme"]),
]

@Suite("CLI end to end: the built binary against loopback servers")
struct CLIEndToEndTests {
    static let itemKeys: Set<String> = [
        "id", "feed", "feeds", "source", "title", "summary", "url", "author", "image_url", "published", "updated", "tags",
    ]

    @Test("`pull --format json` prints the documented page shape, nulls as null", .enabled(if: BenchServer.isAvailable, benchServerMissing))
    func jsonPageShape() async throws {
        try await withBenchServer(acme) { server in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let config = try folder.write("feeds.yaml", feedsYAML(base: server.baseURL, acmeFeeds))
            let output = try await feedagg(["pull", "--config", config.path, "--format", "json", "--per-page", "100"], in: folder.url)
            try #require(output.status == 0, "\(output.summary)")
            #expect(output.stdout.hasPrefix(#"{"page":1,"per_page":100,"total_items":57,"total_pages":1,"#), "\(output.stdout.prefix(200))")

            let page = try jsonPage(output)
            #expect(Set(page.keys) == ["page", "per_page", "total_items", "total_pages", "next_cursor", "items"])
            #expect(page["next_cursor"] is NSNull, "one page holds everything: no next cursor")
            #expect(page["page"] as? Int == 1)
            #expect(page["per_page"] as? Int == 100)
            #expect(page["total_items"] as? Int == 45 + 12)
            #expect(page["total_pages"] as? Int == 1)
            let entries = try items(page)
            #expect(entries.count == 57)
            for entry in entries {
                #expect(Set(entry.keys) == Self.itemKeys, "item keys: \(entry.keys.sorted())")
                let author = try #require(entry["author"] as? [String: Any], "author of \(entry["id"] ?? "?")")
                #expect(Set(author.keys) == ["name", "url", "avatar_url"])
                #expect(entry["feeds"] as? [String] == [entry["feed"] as? String ?? "?"])
            }
            #expect(Set(entries.compactMap { $0["id"] as? String }).count == 57, "ids are not distinct")

            let member = try #require(entries.first { $0["source"] as? String == "github.members" })
            #expect(member["published"] is NSNull, "a member has no date: published must be null, is \(member["published"] ?? "absent")")
            #expect(member["updated"] is NSNull)
            #expect(member["feed"] as? String == "acme-members")
            #expect((member["id"] as? String)?.hasPrefix("github.members:") == true)
            let repository = try #require(entries.first { $0["source"] as? String == "github.repos" })
            #expect(repository["published"] is String)
            #expect(repository["updated"] is String)
            #expect((repository["summary"] as? String)?.contains(" forks - ") == true)
            #expect((repository["url"] as? String)?.hasPrefix("https://github.com/acme/") == true)
            #expect((repository["author"] as? [String: Any])?["name"] as? String == "acme")
        }
    }

    @Test("`--format jsonl` prints one item per line; `--page 2 --per-page 5` pages the same stream", .enabled(if: BenchServer.isAvailable, benchServerMissing))
    func jsonlAndPaging() async throws {
        try await withBenchServer(acme) { server in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let config = try folder.write("feeds.yaml", feedsYAML(base: server.baseURL, acmeFeeds))

            let whole = try await feedagg(["pull", "-c", config.path, "--format", "json", "--per-page", "100"], in: folder.url)
            try #require(whole.status == 0, "\(whole.summary)")
            let allIDs = try items(jsonPage(whole)).compactMap { $0["id"] as? String }
            try #require(allIDs.count == 57)

            let lines = try await feedagg(["pull", "-c", config.path, "--format", "jsonl", "--per-page", "100"], in: folder.url)
            try #require(lines.status == 0, "\(lines.summary)")
            #expect(lines.stdout.hasSuffix("\n"))
            let rows = lines.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(rows.count == 57)
            let lineIDs = try rows.map { row -> String in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(row.utf8)) as? [String: Any], "line: \(row)")
                #expect(Set(object.keys) == Self.itemKeys)
                return try #require(object["id"] as? String)
            }
            #expect(lineIDs == allIDs, "jsonl and json list different items or orders")

            let second = try await feedagg(
                ["pull", "-c", config.path, "--format", "json", "--page", "2", "--per-page", "5"], in: folder.url)
            try #require(second.status == 0, "\(second.summary)")
            let page = try jsonPage(second)
            #expect(page["page"] as? Int == 2)
            #expect(page["per_page"] as? Int == 5)
            #expect(page["total_items"] as? Int == 57)
            #expect(page["total_pages"] as? Int == 12)
            #expect(try items(page).compactMap { $0["id"] as? String } == Array(allIDs[5..<10]))

            let past = try await feedagg(
                ["pull", "-c", config.path, "--format", "json", "--page", "13", "--per-page", "5"], in: folder.url)
            #expect(past.status == 0, "\(past.summary)")
            #expect(try items(jsonPage(past)).isEmpty, "page 13 of 12 is empty")
        }
    }

    @Test("the same repositories from two feeds appear once, with feeds == [a, b]", .enabled(if: BenchServer.isAvailable, benchServerMissing))
    func duplicatesAcrossFeeds() async throws {
        try await withBenchServer(acme) { server in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let config = try folder.write(
                "feeds.yaml",
                feedsYAML(
                    base: server.baseURL,
                    [("a", "github.repos", ["org: acme", "per_page: 20"]), ("b", "github.repos", ["org: acme", "per_page: 50"])]))
            let output = try await feedagg(["pull", "-c", config.path, "--format", "json", "--per-page", "100"], in: folder.url)
            try #require(output.status == 0, "\(output.summary)")
            let page = try jsonPage(output)
            #expect(page["total_items"] as? Int == 45)
            let entries = try items(page)
            #expect(entries.count == 45)
            for entry in entries {
                #expect(entry["feeds"] as? [String] == ["a", "b"], "\(entry["id"] ?? "?"): feeds \(entry["feeds"] ?? "?")")
                #expect(entry["feed"] as? String == "a")
            }
        }
    }

    @Test("exit 0 when every feed succeeds, 3 when one feed gets a 404 (one stderr line naming feed, URL, HTTP 404)", .enabled(if: BenchServer.isAvailable, benchServerMissing))
    func partialFailureExitCode() async throws {
        try await withBenchServer(acme) { server in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let good = try folder.write("good.yaml", feedsYAML(base: server.baseURL, acmeFeeds))
            let ok = try await feedagg(["pull", "-c", good.path, "--format", "json"], in: folder.url)
            #expect(ok.status == 0, "\(ok.summary)")
            #expect(!ok.stderr.contains("✗"), "\(ok.stderr)")

            let mixed = try folder.write(
                "mixed.yaml", feedsYAML(base: server.baseURL, acmeFeeds + [("ghost-repos", "github.repos", ["org: ghost"])]))
            let output = try await feedagg(["pull", "-c", mixed.path, "--format", "json", "--per-page", "100"], in: folder.url)
            #expect(output.status == 3, "\(output.summary)")
            let failures = output.stderr.split(separator: "\n").filter { $0.contains("HTTP 404") }
            #expect(failures.count == 1, "stderr:\n\(output.stderr)")
            let line = try #require(failures.first.map(String.init))
            #expect(line.contains("ghost-repos"), "\(line)")
            #expect(line.contains("\(server.baseURL.absoluteString)/orgs/ghost/repos"), "\(line)")
            // The feeds that worked are still printed.
            #expect(try jsonPage(output)["total_items"] as? Int == 57)
        }
    }

    @Test("exit 4 when every feed fails (base_url at a closed port: connection failed)")
    func allFailedExitCode() async throws {
        let server = try await LoopbackHTTPServer.start { _ in LoopbackResponse(status: 500) }
        let closed = try #require(URL(string: server.baseURL))
        try await server.shutdown()

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write(
            "feeds.yaml",
            feedsYAML(base: closed, [("r", "github.repos", ["org: acme"]), ("m", "github.members", ["org: acme"])],
                settings: ["connect_timeout: 5"]))
        let output = try await feedagg(["pull", "-c", config.path, "--format", "json"], in: folder.url)
        #expect(output.status == 4, "\(output.summary)")
        let failures = output.stderr.split(separator: "\n").filter { $0.contains("connection failed") }
        #expect(failures.count == 2, "stderr:\n\(output.stderr)")
        #expect(failures.contains { $0.contains("'r'") } && failures.contains { $0.contains("'m'") })
        #expect(try items(jsonPage(output)).isEmpty)
    }

    @Test("exit 2 for malformed YAML: `<path>:L:C: error:` and nothing fetched", .enabled(if: BenchServer.isAvailable, benchServerMissing))
    func malformedYAML() async throws {
        try await withBenchServer(acme) { server in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let config = try folder.write(
                "feeds.yaml",
                """
                feeds:
                  - name: acme-repos
                    source: github.repos
                    base_url: \(server.baseURL.absoluteString)
                    org: [acme
                  - name: acme-members
                    source: github.members
                    org: acme
                """)
            let output = try await feedagg(["pull", "-c", config.path], in: folder.url)
            #expect(output.status == 2, "\(output.summary)")
            let prefix = "\(config.path):"
            #expect(output.stderr.hasPrefix(prefix), "stderr:\n\(output.stderr)")
            let location = output.stderr.dropFirst(prefix.count).prefix { $0 != "\n" }
            #expect(
                location.range(of: #"^\d+:\d+: error: "#, options: .regularExpression) != nil,
                "first stderr line: \(location)")
            #expect(output.stdout.isEmpty, "stdout: \(output.stdout)")
            let stats = try await server.stats()
            #expect(stats.requests == 0, "nothing may be fetched; the server saw \(stats.byPath)")

            let validate = try await feedagg(["validate", "-c", config.path], in: folder.url)
            #expect(validate.status == 2, "\(validate.summary)")
            #expect(validate.stderr.hasPrefix(prefix))
        }
    }

    @Test("the binary under test is the one built beside this test bundle, not a stale one")
    func binaryIsFromThisBuild() throws {
        let binary = try TestBinary.feedagg
        let bundleDirectory = Bundle.main.bundleURL.resolvingSymlinksInPath()
        let candidates = [bundleDirectory, bundleDirectory.deletingLastPathComponent()].map(\.path)
        #expect(candidates.contains(binary.deletingLastPathComponent().path), "\(binary.path) vs bundle \(bundleDirectory.path)")
    }

    @Test("exit 2 for an unknown flag")
    func unknownFlag() async throws {
        let output = try await feedagg(["pull", "--no-such-flag"])
        #expect(output.status == 2, "\(output.summary)")
        #expect(output.stderr.contains("--no-such-flag"), "\(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    @Test("`validate` exits 0 on a good file without fetching anything", .enabled(if: BenchServer.isAvailable, benchServerMissing))
    func validateGoodFile() async throws {
        try await withBenchServer(acme) { server in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let config = try folder.write("feeds.yaml", feedsYAML(base: server.baseURL, acmeFeeds))
            let output = try await feedagg(["validate", "--config", config.path], in: folder.url)
            #expect(output.status == 0, "\(output.summary)")
            #expect(output.stdout.contains("2 feeds OK"), "\(output.stdout)")
            #expect(output.stdout.contains("acme-repos (github.repos)") && output.stdout.contains("acme-members (github.members)"))
            #expect(try await server.stats().requests == 0)
        }
    }

    @Test("`validate` of the repository's own feeds.yaml exits 0")
    func validateDemoFile() async throws {
        let output = try await feedagg(["validate", "--config", "feeds.yaml"], in: RepositoryPaths.root)
        #expect(output.status == 0, "\(output.summary)")
        #expect(output.stdout.contains("5 feeds OK"), "\(output.stdout)")
    }

    @Test("`sources` lists every source type of the registry")
    func sourcesListsEveryType() async throws {
        let output = try await feedagg(["sources"])
        #expect(output.status == 0, "\(output.summary)")
        let headings = output.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.compactMap {
            $0.split(separator: ":").first.map(String.init)
        }
        // One heading per type, then "Every feed also accepts".
        #expect(headings.count == SourceRegistry.builtIn.descriptors.count + 1, "\(headings)")
        for type in SourceRegistry.builtIn.descriptors.map(\.typeName) {
            #expect(headings.contains(type), "`sources` does not list \(type):\n\(output.stdout)")
        }
    }

    @Test("`--verbose` logs each request with status and ms; env secrets never appear in the output but reach the server")
    func verboseLogAndSecrets() async throws {
        let token = "ghs_SENTINEL_\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        let key = "pxkey_SENTINEL_\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        let log = RequestLog()
        let server = try await LoopbackHTTPServer.start { request in
            log.record(request)
            return ScriptedAPI.respond(to: request)
        }
        do {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let base = try #require(URL(string: server.baseURL))
            let config = try folder.write(
                "feeds.yaml",
                "defaults:\n  token: ${GITHUB_TOKEN}\n"
                    + feedsYAML(
                        base: base,
                        [
                            ("acme-repos", "github.repos", ["org: acme", "per_page: 2"]),
                            ("shots", "photos.500px", ["feature: editors", "consumer_key: ${PX_CONSUMER_KEY}"]),
                        ]))
            var environment = TestBinary.cleanEnvironment
            environment["GITHUB_TOKEN"] = token
            environment["PX_CONSUMER_KEY"] = key
            let output = try await feedagg(
                ["pull", "--verbose", "-c", config.path, "--format", "json"], in: folder.url, environment: environment)
            #expect(output.status == 0, "\(output.summary)")
            #expect(try jsonPage(output)["total_items"] as? Int == ScriptedAPI.repositories + ScriptedAPI.photos)

            // One log line per request: method, URL, status, bytes and milliseconds.
            let requestLines = output.stderr.split(separator: "\n").filter { $0.hasPrefix("GET ") }
            #expect(requestLines.count == log.requests.count, "stderr:\n\(output.stderr)")
            for line in requestLines {
                #expect(
                    line.range(of: #"^GET http://127\.0\.0\.1:\d+/\S+ → 200 · \d+ B · \d+ ms"#, options: .regularExpression) != nil,
                    "log line: \(line)")
            }
            #expect(requestLines.contains { $0.contains("/orgs/acme/repos?per_page=2 ") })
            #expect(requestLines.contains { $0.contains("/v1/photos?") && $0.contains("consumer_key=REDACTED") })

            // The secrets: never printed, but sent.
            for secret in [token, key] {
                #expect(!output.stdout.contains(secret), "a secret leaked to stdout")
                #expect(!output.stderr.contains(secret), "a secret leaked to stderr:\n\(output.stderr)")
            }
            let github = log.requests.filter { $0.path.hasPrefix("/orgs/") }
            #expect(github.count == ScriptedAPI.repositoryPages)
            for request in github {
                #expect(request.header("Authorization") == "Bearer \(token)", "\(request.target)")
            }
            let photos = log.requests.filter { $0.path == "/v1/photos" }
            #expect(photos.count == 1)
            for request in photos {
                #expect(request.header("Authorization") == nil, "the GitHub token went to the photos API")
                #expect(request.query?.contains("consumer_key=\(key)") == true, "\(request.target)")
            }
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    @Test("`pull --replay Fixtures --config feeds.yaml` from the repository root: exit 0, all five demo feeds on page 1")
    func replayDemo() async throws {
        // A cache of its own for the kept replay store (another test replays the same pair).
        let cache = try TemporaryFolder("feedagg-replay-cache")
        defer { cache.remove() }
        var environment = TestBinary.cleanEnvironment
        environment["XDG_CACHE_HOME"] = cache.url.path
        let output = try await TestBinary.runFeedagg(
            ["pull", "--replay", "Fixtures", "--config", "feeds.yaml", "--format", "json"], environment: environment,
            currentDirectory: RepositoryPaths.root)
        #expect(output.status == 0, "\(output.summary)")
        let page = try jsonPage(output)
        let entries = try items(page)
        #expect(entries.count == page["per_page"] as? Int)
        let feeds = Set(entries.flatMap { $0["feeds"] as? [String] ?? [] })
        let demo: Set = ["facebook-repos", "xebia-members", "public-gists", "member-gists", "editors-photos"]
        #expect(feeds == demo, "feeds on page 1: \(feeds.sorted())")
        #expect(!output.stderr.contains("✗"), "\(output.stderr)")
        // A replay needs no credential: no warning about the unset GITHUB_TOKEN / PX_CONSUMER_KEY.
        #expect(!output.stderr.contains("warning:"), "\(output.stderr)")
    }
}

/// A tiny scripted GitHub + 500px API for the loopback server: `/orgs/acme/repos` in pages of
/// `per_page` with relative Link headers, and one page of `/v1/photos`.
private enum ScriptedAPI {
    static let repositories = 5
    static let repositoryPages = 3  // at per_page=2
    static let photos = 3

    static func respond(to request: LoopbackRequest) -> LoopbackResponse {
        let query = Dictionary(
            (request.query ?? "").split(separator: "&").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { first, _ in first })
        let json = [(name: "Content-Type", value: "application/json")]
        switch request.path {
        case "/orgs/acme/repos":
            let perPage = Int(query["per_page"] ?? "") ?? 30
            let page = Int(query["page"] ?? "") ?? 1
            let last = (repositories + perPage - 1) / perPage
            let ids = Array(1...repositories).dropFirst((page - 1) * perPage).prefix(perPage)
            let body = "[" + ids.map { id in
                #"{"id":\#(id),"name":"r\#(id)","html_url":"https://github.com/acme/r\#(id)","owner":{"login":"acme"},"#
                    + #""created_at":"2024-01-0\#(id)T00:00:00Z","updated_at":"2024-02-0\#(id)T00:00:00Z"}"#
            }.joined(separator: ",") + "]"
            var links: [String] = []
            if page < last {
                links.append(#"</orgs/acme/repos?per_page=\#(perPage)&page=\#(page + 1)>; rel="next""#)
                links.append(#"</orgs/acme/repos?per_page=\#(perPage)&page=\#(last)>; rel="last""#)
            }
            return LoopbackResponse(
                headers: json + (links.isEmpty ? [] : [(name: "Link", value: links.joined(separator: ", "))]), text: body)
        case "/v1/photos":
            let body = #"{"current_page":1,"total_pages":1,"total_items":\#(photos),"photos":["#
                + (1...photos).map { #"{"id":\#($0),"name":"p\#($0)","created_at":"2024-03-0\#($0)T00:00:00Z"}"# }
                .joined(separator: ",") + "]}"
            return LoopbackResponse(headers: json, text: body)
        default:
            return LoopbackResponse(status: 404, headers: json, text: #"{"message":"Not Found"}"#)
        }
    }
}
