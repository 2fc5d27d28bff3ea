import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Which plugin failures are tried again, and what a plugin's output may not leak: through the
/// real binary.
@Suite("source: exec: permanent failures are tried once; secrets printed on stdout are redacted")
struct PluginFailureCLITests {
    static func runs(_ file: String, in folder: TemporaryFolder) -> Int {
        ((try? String(contentsOfFile: folder.path(file), encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    @Test("not found, not executable and a bad line are tried once and say which; a timeout is retried")
    func permanentFailures() async throws {
        let folder = try TemporaryFolder("feedagg-exec-permanent")
        defer { folder.remove() }
        try writeExecutable("noexec.sh", "#!/bin/sh\necho run >> noexec.runs\n", in: folder)
        chmod(folder.path("noexec.sh"), 0o644)
        try writeExecutable("badline.sh", "#!/bin/sh\necho run >> badline.runs\ncat >/dev/null\necho 'not json'\n", in: folder)
        try writeExecutable("slow.sh", "#!/bin/sh\necho run >> slow.runs\nexec sleep 30\n", in: folder)
        try writeExecutable("good.sh", "#!/bin/sh\ncat >/dev/null\necho '{\"item\": {\"id\": 1, \"title\": \"ok\"}}'\n", in: folder)
        // The default retries (2): three tries for a failure worth retrying.
        let config = try folder.write(
            "feeds.yaml",
            """
            settings: { retry_max_wait: 5 }
            feeds:
              - { name: good, source: exec, command: [./good.sh] }
              - { name: missing, source: exec, command: [./missing.sh] }
              - { name: noexec, source: exec, command: [./noexec.sh] }
              - { name: badline, source: exec, command: [./badline.sh] }
              - { name: slow, source: exec, command: [./slow.sh], timeout: 1 }
              - { name: nowhere, source: exec, command: [no-such-plugin-anywhere] }

            """)
        let output = try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", folder.path("s.sqlite")], currentDirectory: folder.url,
            timeout: .seconds(120))
        #expect(output.status == 3, "\(output.summary)")
        let lines = output.stderr.split(separator: "\n").map(String.init)
        func line(_ feed: String) throws -> String {
            try #require(lines.first { $0.hasPrefix("✗ feed '\(feed)':") }, "no error for \(feed):\n\(output.stderr)")
        }
        let missing = try line("missing")
        #expect(missing.contains("plugin ./missing.sh") && missing.contains("not found: \(folder.url.path)"), "\(missing)")
        #expect(!missing.contains("after") && !missing.contains("permission"), "\(missing)")
        let nowhere = try line("nowhere")
        #expect(nowhere.contains("not found: 'no-such-plugin-anywhere' is in none of the plugin's PATH folders"), "\(nowhere)")
        #expect(!nowhere.contains("after"), "\(nowhere)")
        let noexec = try line("noexec")
        #expect(noexec.contains("plugin ./noexec.sh") && noexec.contains("not executable (permission denied)"), "\(noexec)")
        #expect(!noexec.contains("after") && !noexec.contains("not found"), "\(noexec)")
        #expect(Self.runs("noexec.runs", in: folder) == 0)
        let badline = try line("badline")
        #expect(badline.contains("malformed JSON: ") && !badline.contains("malformed JSON (malformed JSON"), "\(badline)")
        #expect(!badline.contains("after"), "\(badline)")
        #expect(Self.runs("badline.runs", in: folder) == 1)
        let slow = try line("slow")
        #expect(slow.contains("ran longer than its timeout") && slow.contains("(after 3 tries)"), "\(slow)")
        #expect(Self.runs("slow.runs", in: folder) == 3)
    }

    static let secret = "Zq9-s3cr3t-f1le-k3y-7781"

    @Test("a key printed on stdout by mistake is redacted from the error, `feeds`, its JSON and plugin check")
    func secretOnStandardOutput() async throws {
        let folder = try TemporaryFolder("feedagg-exec-leak")
        defer { folder.remove() }
        let key = try folder.write("api.key", Self.secret + "\n")
        chmod(key.path, 0o600)
        // The key starts at character 75 of the line: the 80-character quote would cut it in two.
        let padding = String(repeating: "d", count: 66)
        try writeExecutable(
            "leak.sh",
            """
            #!/bin/sh
            cat >/dev/null
            echo "debug \(padding) key=$API_KEY and more"
            echo '{"item": {"id": 1, "title": "after the debug line"}}'

            """, in: folder)
        let config = try folder.write(
            "feeds.yaml",
            "settings: { retries: 0 }\nfeeds:\n  - { name: leak, source: exec, command: [./leak.sh], env: { API_KEY_file: api.key } }\n")
        let db = folder.path("s.sqlite")
        let pull = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", db], currentDirectory: folder.url)
        #expect(pull.status == 4, "every feed failed\n\(pull.summary)")
        #expect(pull.stderr.contains("malformed JSON") && pull.stderr.contains("REDACTED"), "\(pull.stderr)")
        let fragment = String(Self.secret.prefix(6))
        #expect(!pull.stderr.contains(fragment) && !pull.stdout.contains(fragment), "\(pull.summary)")

        let table = try await TestBinary.runFeedagg(["feeds", "--config", config.path, "--db", db], currentDirectory: folder.url)
        #expect(table.stdout.contains("malformed JSON"), "\(table.summary)")
        #expect(!table.stdout.contains(fragment) && !table.stderr.contains(fragment), "\(table.summary)")
        let json = try await TestBinary.runFeedagg(
            ["feeds", "--config", config.path, "--db", db, "--format", "json"], currentDirectory: folder.url)
        let object = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        let feed = try #require((object["feeds"] as? [[String: Any]])?.first, "\(json.summary)")
        let stored = try #require(feed["last_error"] as? String, "the stored last_error: \(feed)")
        #expect(stored.contains("REDACTED") && !stored.contains(fragment), "\(stored)")
        #expect(!json.stdout.contains(fragment), "\(json.stdout)")

        let check = try await TestBinary.runFeedagg(
            ["plugin", "check", "--env", "API_KEY=\(Self.secret)", "--", "./leak.sh"], currentDirectory: folder.url)
        #expect(check.status == 1 && check.stdout.contains("REDACTED"), "\(check.summary)")
        #expect(!check.stdout.contains(fragment) && !check.stderr.contains(fragment), "\(check.summary)")
    }
}
