import FeedaggTesting
import Foundation
import LoopbackServer
import Testing

/// `feedagg plugin check -- COMMAND…`: the conformance checks against executables.
@Suite("feedagg plugin check")
struct PluginCheckCLITests {
    @Test("both example plugins pass")
    func examples() async throws {
        let api = StoriesAPI()
        try await LoopbackHTTPServer.withServer(handler: { api.handle($0) }) { server in
            let python = try await TestBinary.runFeedagg(
                [
                    "plugin", "check", "--env", "PATH=/usr/bin:/bin", "--param", "api=\(server.baseURL)/api/v1",
                    "--param", "query=swift", "--per-page", "3", "--",
                    "python3", ExecPullCLITests.examples.appendingPathComponent("hn_stories.py").path,
                ], timeout: .seconds(120))
            #expect(python.status == 0, "\(python.summary)")
            #expect(python.stdout.contains("3 page(s), 7 item(s), every check passed"), "\(python.stdout)")
        }
        let folder = try TemporaryFolder("feedagg-plugin-check")
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("notes"), withIntermediateDirectories: true)
        _ = try folder.write("notes/one.txt", "One\n")
        let shell = try await TestBinary.runFeedagg(
            ["plugin", "check", "--", ExecPullCLITests.examples.appendingPathComponent("notes_dir.sh").path, "notes"],
            currentDirectory: folder.url, timeout: .seconds(60))
        #expect(shell.status == 0, "\(shell.summary)")
        #expect(shell.stdout.contains("1 page(s), 1 item(s), every check passed"), "\(shell.stdout)")
    }

    @Test("--help and -h print the command's help; after -- they are the plugin's words", arguments: ["--help", "-h"])
    func help(flag: String) async throws {
        let asked = try await TestBinary.runFeedagg(["plugin", "check", flag], timeout: .seconds(60))
        #expect(asked.status == 0, "\(asked.summary)")
        #expect(asked.stdout.contains("USAGE: feedagg plugin check"), "\(asked.stdout)")
        #expect(asked.stdout.contains("--env <NAME=value>"), "\(asked.stdout)")
        let plugin = try await TestBinary.runFeedagg(["plugin", "check", "--", flag], timeout: .seconds(60))
        #expect(plugin.status == 1, "\(plugin.summary)")
        #expect(plugin.stdout.contains("problem(s) with \(flag)"), "\(plugin.stdout)")
    }

    @Test("a plugin that repeats ids, loops on its cursor and changes between runs is told each problem")
    func violations() async throws {
        let folder = try TemporaryFolder("feedagg-plugin-check")
        defer { folder.remove() }
        let script = """
            #!/bin/sh
            read -r request
            case "$request" in
              *'"cursor":null'*) echo "{\\"item\\": {\\"id\\": \\"$$\\", \\"title\\": \\"changes\\"}}"
                                 echo '{"item": {"id": "same", "title": "a"}}'; echo '{"next": "c1"}' ;;
              *) echo '{"item": {"id": "same", "title": "again"}}'; echo '{"next": "c1"}' ;;
            esac

            """
        try writeExecutable("bad.sh", script, in: folder)
        let output = try await TestBinary.runFeedagg(
            ["plugin", "check", "--", "./bad.sh"], currentDirectory: folder.url, timeout: .seconds(60))
        #expect(output.status == 1, "\(output.summary)")
        #expect(output.stdout.contains("error: page 2: item id 'check:same' was already listed"), "\(output.stdout)")
        #expect(output.stdout.contains("error: page 2: cursor 'c1' was handed back twice (a pagination cycle)"), "\(output.stdout)")
        #expect(output.stdout.contains("error: page 1 run twice listed different items"), "\(output.stdout)")
        #expect(output.stdout.contains("3 problem(s) with ./bad.sh"), "\(output.stdout)")
    }
}
