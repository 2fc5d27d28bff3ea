import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The plugin stderr log of a PostgreSQL store, through the real binary: under
/// `$XDG_STATE_HOME/feedagg`, private, and never a `postgres:` folder in the working directory.
@Suite("an exec feed's plugin stderr with a PostgreSQL store")
struct PluginStderrPostgresCLITests {
    @Test("kept under XDG_STATE_HOME (0700 folder, 0600 file), shown by feeds, nothing under ./postgres:")
    func keptInTheStateFolder() async throws {
        let folder = try TemporaryFolder("feedagg-exec-stderr-pg")
        defer { folder.remove() }
        let db = try await PostgresCluster.shared().createDatabase("exec").url
        try writeExecutable("fails.sh", "#!/bin/sh\ncat >/dev/null\necho 'fatal: the plugin broke' >&2\nexit 2\n", in: folder)
        let config = try folder.write(
            "feeds.yaml", "settings: { retries: 0 }\nfeeds:\n  - { name: fails, source: exec, command: [./fails.sh] }\n")
        var environment = TestBinary.cleanEnvironment
        let state = folder.path("state")
        environment["XDG_STATE_HOME"] = state
        let pull = try await TestBinary.runFeedagg(
            ["pull", "--config", config.path, "--db", db], environment: environment, currentDirectory: folder.url)
        #expect(pull.status == 4, "\(pull.summary)")

        let entries = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!entries.contains { $0.lowercased().hasPrefix("postgres") }, "\(entries)")
        let logs = try FileManager.default.contentsOfDirectory(atPath: state + "/feedagg")
        let log = try #require(logs.first { $0.hasPrefix("postgres-") && $0.hasSuffix(".plugin-stderr") }, "\(logs)")
        #expect(!log.contains(":"), "\(log)")
        let file = state + "/feedagg/" + log + "/fails.txt"
        #expect(PluginProcessTests.mode(state + "/feedagg/" + log) == 0o700)
        #expect(PluginProcessTests.mode(file) == 0o600)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "fatal: the plugin broke\n")

        let feeds = try await TestBinary.runFeedagg(
            ["feeds", "--config", config.path, "--db", db, "--format", "json"], environment: environment,
            currentDirectory: folder.url)
        #expect(feeds.stdout.contains("\"plugin_stderr\":\"fatal: the plugin broke\\n\""), "\(feeds.summary)")
    }
}
