import FeedaggTesting
import Foundation
import Testing

/// A plugin's standard error kept per feed (beside the store) and shown by `feedagg feeds` for a
/// feed whose last pull failed, through the real binary.
@Suite("an exec feed's last plugin stderr is kept and shown by feedagg feeds")
struct PluginStderrCLITests {
    static func feeds(_ config: URL, _ db: String, json: Bool, in folder: TemporaryFolder) async throws -> ProcessOutput {
        try await TestBinary.runFeedagg(
            ["feeds", "--config", config.path, "--db", db] + (json ? ["--format", "json"] : []),
            currentDirectory: folder.url, timeout: .seconds(120))
    }

    static func feedObjects(_ output: ProcessOutput) throws -> [String: [String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        let feeds = try #require(object["feeds"] as? [[String: Any]], "\(output.stdout.prefix(300))")
        return Dictionary(uniqueKeysWithValues: feeds.map { ($0["name"] as? String ?? "?", $0) })
    }

    @Test("a failed plugin's whole stderr tail is kept: a hint in the table, the text in JSON; a good pull clears it")
    func keptPerFeed() async throws {
        let folder = try TemporaryFolder("feedagg-exec-stderr")
        defer { folder.remove() }
        // 200 progress lines (~7 KB, more than the 500 characters the error quotes), then the cause.
        let noisy = """
            #!/bin/sh
            cat >/dev/null
            i=0
            while [ $i -lt 200 ]; do echo "progress line $i of the noisy plugin" >&2; i=$((i+1)); done
            echo "fatal: token $API_KEY rejected" >&2
            exit 3

            """
        try writeExecutable("noisy.sh", noisy, in: folder)
        try writeExecutable("calm.sh", "#!/bin/sh\ncat >/dev/null\necho '{\"item\": {\"id\": 1, \"title\": \"one\"}}'\n", in: folder)
        let config = try folder.write(
            "feeds.yaml",
            """
            settings: { retries: 0 }
            feeds:
              - { name: noisy, source: exec, command: [./noisy.sh], env: { API_KEY: t0ken-v4lue } }
              - { name: calm, source: exec, command: [./calm.sh] }

            """)
        let db = folder.path("store.sqlite")
        let pull = try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", db], currentDirectory: folder.url, timeout: .seconds(120))
        #expect(pull.status != 0, "\(pull.summary)")

        let json = try Self.feedObjects(await Self.feeds(config, db, json: true, in: folder))
        let kept = try #require(json["noisy"]?["plugin_stderr"] as? String, "\(json)")
        #expect(kept.hasPrefix("progress line 0 of the noisy plugin\n"), "the whole stderr, not the error's excerpt")
        #expect(kept.contains("progress line 199 of the noisy plugin\nfatal: token REDACTED rejected"))
        #expect(!kept.contains("t0ken-v4lue"))
        #expect(json["calm"]?["plugin_stderr"] is NSNull, "a feed whose last pull succeeded shows none")

        let table = try await Self.feeds(config, db, json: false, in: folder)
        #expect(table.status == 0, "\(table.summary)")
        let noisyRow = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("noisy") })
        #expect(noisyRow.contains("plugin stderr kept (7"), "\(noisyRow)")
        #expect(noisyRow.contains("--format json"), "\(noisyRow)")
        #expect(!table.stdout.contains("progress line 0 of"), "the table hints; it does not print the stderr")

        // The plugin mended: the next pull succeeds and nothing is shown any more.
        try writeExecutable("noisy.sh", "#!/bin/sh\ncat >/dev/null\necho '{\"item\": {\"id\": 2, \"title\": \"two\"}}'\n", in: folder)
        let again = try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", db], currentDirectory: folder.url, timeout: .seconds(120))
        #expect(again.status == 0, "\(again.summary)")
        let after = try Self.feedObjects(await Self.feeds(config, db, json: true, in: folder))
        #expect(after["noisy"]?["plugin_stderr"] is NSNull, "\(after)")
    }
}
