import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing

/// A Hacker News search-style API (Algolia's shape): 7 stories, `hitsPerPage` per page, an ETag.
final class StoriesAPI: Sendable {
    let requests = Mutex<[LoopbackRequest]>([])

    func handle(_ request: LoopbackRequest) -> LoopbackResponse {
        requests.withLock { $0.append(request) }
        guard request.path == "/api/v1/search_by_date" else { return LoopbackResponse(status: 404, text: "no") }
        let etag = "\"stories-1\""
        let page = Int(request.queryValues["page"] ?? "0") ?? 0
        if page == 0, request.header("If-None-Match") == etag { return LoopbackResponse(status: 304, headers: [("ETag", etag)]) }
        let size = Int(request.queryValues["hitsPerPage"] ?? "3") ?? 3
        let total = 7
        let hits = (page * size..<min(total, (page + 1) * size)).map { index in
            #"{"objectID": "\#(4000 + index)", "title": "Story \#(index) about \#(request.queryValues["query"] ?? "")", "url": "https://example.org/\#(index)", "author": "pg", "created_at": "2025-11-0\#(index + 1)T12:00:00.000Z"}"#
        }
        let pages = (total + size - 1) / size
        return LoopbackResponse(
            headers: [("Content-Type", "application/json"), ("ETag", etag)],
            text: #"{"hits": [\#(hits.joined(separator: ","))], "nbPages": \#(pages), "page": \#(page)}"#)
    }
}

/// `source: exec` through the real binary: the two example plugins, and plugins that misbehave.
@Suite("source: exec end to end through feedagg pull")
struct ExecPullCLITests {
    static let examples = RepositoryPaths.root.appendingPathComponent("Examples/plugins")

    static func pull(_ yaml: String, in folder: TemporaryFolder) async throws -> ProcessOutput {
        let config = try folder.write("feeds.yaml", yaml)
        return try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", folder.path("store.sqlite"), "--format", "json", "--per-page", "100"],
            currentDirectory: folder.url, timeout: .seconds(120))
    }

    static func ids(_ output: ProcessOutput) throws -> [String] {
        let object = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]], "no items in \(output.stdout.prefix(300))")
        return items.compactMap { $0["id"] as? String }
    }

    /// Writes an executable script into `folder` (see ``writeExecutable(_:_:in:)``).
    static func script(_ name: String, _ text: String, in folder: TemporaryFolder) throws {
        try writeExecutable(name, text, in: folder)
    }

    @Test("the Python example pages through the API with the cursor; the second pull is a 304 via its etag")
    func pythonExample() async throws {
        let api = StoriesAPI()
        try await LoopbackHTTPServer.withServer(handler: { api.handle($0) }) { server in
            let folder = try TemporaryFolder("feedagg-exec")
            defer { folder.remove() }
            let yaml = """
                feeds:
                  - name: hn
                    source: exec
                    command: [python3, \(Self.examples.path)/hn_stories.py]
                    env: { PATH: "/usr/bin:/bin" }
                    per_page: 3
                    params: { api: "\(server.baseURL)/api/v1", query: swift }

                """
            let first = try await Self.pull(yaml, in: folder)
            #expect(first.status == 0, "\(first.summary)")
            #expect(try Self.ids(first).sorted() == (4000..<4007).map { "hn:\($0)" })
            #expect(api.requests.withLock { $0.map { $0.queryValues["page"] ?? "" } } == ["0", "1", "2"])
            let second = try await Self.pull(yaml, in: folder)
            #expect(second.status == 0, "\(second.summary)")
            #expect(try Self.ids(second).count == 7)
            let validators = api.requests.withLock { $0.map { $0.header("If-None-Match") } }
            #expect(validators.count == 4, "the 304 ends the walk at page 1")
            #expect(validators.last == "\"stories-1\"")
        }
    }

    @Test("the shell example lists a folder's notes, JSON-escaped")
    func shellExample() async throws {
        let folder = try TemporaryFolder("feedagg-exec")
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("notes"), withIntermediateDirectories: true)
        _ = try folder.write("notes/a.txt", "A \"quoted\" \\ title\nsecond line\n")
        _ = try folder.write("notes/b.txt", "Plain\n")
        let yaml = """
            feeds:
              - name: notes
                source: exec
                command: [\(Self.examples.path)/notes_dir.sh, ./notes]
                env: { PATH: "/usr/bin:/bin" }

            """
        let output = try await Self.pull(yaml, in: folder)
        #expect(output.status == 0, "\(output.summary)")
        let object = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(Set(items.compactMap { $0["id"] as? String }) == ["notes:a.txt", "notes:b.txt"])
        #expect(items.contains { $0["title"] as? String == "A \"quoted\" \\ title" && $0["summary"] as? String == "second line" })
    }

    @Test("exit 3, a malformed line, a wrong item, a hang and a flood each fail only their feed, clearly")
    func misbehaving() async throws {
        let folder = try TemporaryFolder("feedagg-exec")
        defer { folder.remove() }
        try Self.script("good.sh", "#!/bin/sh\ncat >/dev/null\necho '{\"item\": {\"id\": 1, \"title\": \"fine\"}}'\n", in: folder)
        try Self.script("exit3.sh", "#!/bin/sh\ncat >/dev/null\necho \"auth failed with $API_KEY\" >&2\nexit 3\n", in: folder)
        try Self.script(
            "malformed.sh",
            "#!/bin/sh\ncat >/dev/null\necho '{\"item\": {\"id\": 1, \"title\": \"ok\"}}'\necho\necho '{\"item\": {\"id\": 2, \"title\": oops}}'\n",
            in: folder)
        try Self.script("shape.sh", "#!/bin/sh\ncat >/dev/null\necho '{\"item\": {\"id\": 1}}'\n", in: folder)
        try Self.script("hang.sh", "#!/bin/sh\necho $$ > hang.pid\nsleep 300 &\necho $! > child.pid\nwait\n", in: folder)
        try Self.script("stuck.sh", "#!/bin/sh\ncat >/dev/null\necho '{\"item\": {\"id\": 5, \"title\": \"s\"}}'\necho '{\"next\": \"same\"}'\n", in: folder)
        try Self.script("flood.sh", "#!/bin/sh\nwhile :; do echo '{\"item\": {\"id\": 1, \"title\": \"x\"}}'; done\n", in: folder)
        let yaml = """
            settings: { retries: 0 }
            feeds:
              - { name: good, source: exec, command: [./good.sh] }
              - { name: exit3, source: exec, command: [./exit3.sh], env: { API_KEY: sup3r-s3cret } }
              - { name: malformed, source: exec, command: [./malformed.sh] }
              - { name: shape, source: exec, command: [./shape.sh] }
              - { name: hang, source: exec, command: [./hang.sh], timeout: 1 }
              - { name: flood, source: exec, command: [./flood.sh], max_output_bytes: 65536 }
              - { name: stuck, source: exec, command: [./stuck.sh] }

            """
        let output = try await Self.pull(yaml, in: folder)
        #expect(output.status != 0)
        #expect(try Self.ids(output).sorted() == ["good:1", "stuck:5"], "a cycle keeps the pages already fetched")
        let errors = output.stderr
        #expect(errors.contains("✗ feed 'exit3': plugin ./exit3.sh (page 1): "), "the feed and the command, once each: \(errors)")
        #expect(errors.contains("the plugin exited with status 3; stderr: auth failed with REDACTED"), "\(errors)")
        #expect(!errors.contains("sup3r-s3cret"))
        #expect(errors.contains("feed 'malformed'") && errors.contains("at line 3"), "\(errors)")
        #expect(errors.contains("'{\"item\": {\"id\": 2, \"title\": oops}}'"), "\(errors)")
        #expect(errors.contains("missing required field 'title' at line 1: $.item.title"), "\(errors)")
        #expect(errors.contains("✗ feed 'hang': plugin ./hang.sh (page 1): timed out: the plugin ran longer than its timeout of 1.0 seconds and was killed"), "\(errors)")
        #expect(errors.contains("✗ feed 'flood': plugin ./flood.sh (page 1): response too large: the plugin wrote more than 65536 bytes of output for one page and was killed"), "\(errors)")
        #expect(!errors.contains("exec.feedagg.invalid"), "\(errors)")
        #expect(errors.contains("feed 'stuck'") && errors.contains("pagination cycle"), "\(errors)")
        // The hung plugin and the child it started are gone: the whole process group was killed.
        for file in ["hang.pid", "child.pid"] {
            let pid = try #require(Int32(String(contentsOfFile: folder.path(file), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(!Self.isRunning(pid), "\(file) \(pid) still runs")
        }
    }

    @Test("with --verbose, a successful page's stderr is shown, secrets redacted")
    func verboseStderr() async throws {
        let folder = try TemporaryFolder("feedagg-exec")
        defer { folder.remove() }
        try Self.script(
            "talk.sh", "#!/bin/sh\ncat >/dev/null\necho \"read 2 notes as $USER_KEY\" >&2\necho '{\"item\": {\"id\": 1, \"title\": \"t\"}}'\n",
            in: folder)
        let config = try folder.write(
            "feeds.yaml", "feeds:\n  - { name: talk, source: exec, command: [./talk.sh], env: { USER_KEY: k3y-k3y } }\n")
        let output = try await TestBinary.runFeedagg(
            ["pull", "--verbose", "--config", config.path, "--db", folder.path("s.sqlite")], currentDirectory: folder.url)
        #expect(output.status == 0, "\(output.summary)")
        #expect(output.stderr.contains("plugin of feed 'talk' (page 1); stderr: read 2 notes as REDACTED"), "\(output.stderr)")
        #expect(!output.stderr.contains("k3y-k3y"))
        // The request log names the plugin, not the placeholder endpoint no request leaves for.
        #expect(output.stderr.contains("plugin ./talk.sh → 200 · "), "\(output.stderr)")
        #expect(!output.stderr.contains(".invalid"), "\(output.stderr)")
        let quiet = try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", folder.path("s2.sqlite")], currentDirectory: folder.url)
        #expect(!quiet.stderr.contains("read 2 notes"), "without --verbose the stderr of a good page is not shown")
    }

    /// Whether `pid` is a live process (a zombie waiting for a parent that does not reap it is not).
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state != "Z" && state != "X"
    }

    @Test("a command written as one string is a configuration error: arguments are never split")
    func commandMustBeAList() async throws {
        let folder = try TemporaryFolder("feedagg-exec")
        defer { folder.remove() }
        let output = try await Self.pull("feeds:\n  - { name: x, source: exec, command: \"./a.sh --flag\" }\n", in: folder)
        #expect(output.status == 2, "\(output.summary)")
        #expect(output.stderr.contains("feeds.yaml:2:39: error: 'command' must be a list, found a scalar"), "\(output.stderr)")
    }
}
