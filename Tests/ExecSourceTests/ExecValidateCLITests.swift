import FeedaggTesting
import Foundation
import Testing

// `feedagg validate` of exec feeds (issue 27 §2): the plugin's command, not an internal
// placeholder URL; a plugin that is missing or not executable, and an `env:` value whose
// variable is unset, are warned about with their line (as unset tokens are); exit 0.

@Suite("exec: validate")
struct ExecValidateCLITests {
    @Test("validate names the plugin, and warns of a missing plugin, a non-executable one and an unset env variable")
    func validate() async throws {
        let folder = try TemporaryFolder("feedagg-exec-validate")
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("plugins"), withIntermediateDirectories: true)
        try writeExecutable("plugins/good.sh", "#!/bin/sh\necho '{\"item\":{\"id\":\"1\",\"title\":\"one\"}}'\n", in: folder)
        _ = try folder.write("plugins/plain.sh", "#!/bin/sh\necho hi\n")
        let config = try folder.write(
            "feeds.yaml",
            """
            feeds:
              - name: good
                source: exec
                command: [./plugins/good.sh, --flag]
              - name: missing
                source: exec
                command: [./plugins/missing.sh]
                env: { TOKEN: "${FEEDAGG_TEST_UNSET_VAR}", PATH: /usr/bin:/bin }
              - name: notexec
                source: exec
                command: [./plugins/plain.sh]
              - name: nowhere
                source: exec
                command: [no-such-plugin-anywhere]

            """)
        let output = try await TestBinary.runFeedagg(["validate", "--config", config.path])
        #expect(output.status == 0, "\(output.summary)")
        #expect(output.stdout.contains("  good (exec): runs plugin ./plugins/good.sh --flag, cursor pagination, 30 per page"), "\(output.stdout)")
        #expect(!output.stdout.contains(".invalid") && !output.stderr.contains(".invalid"), "no placeholder URL: \(output.summary)")
        #expect(output.stderr.contains("feeds.yaml:7:15: warning: feed 'missing': plugin './plugins/missing.sh' does not exist"), "\(output.stderr)")
        #expect(output.stderr.contains("feeds.yaml:8:19: warning: environment variable FEEDAGG_TEST_UNSET_VAR is unset; the plugin of feed 'missing' gets TOKEN empty"), "\(output.stderr)")
        #expect(output.stderr.contains("feeds.yaml:11:15: warning: feed 'notexec': plugin './plugins/plain.sh' is not executable"), "\(output.stderr)")
        #expect(output.stderr.contains("feeds.yaml:14:15: warning: feed 'nowhere': plugin 'no-such-plugin-anywhere' is not found in the plugin's PATH"), "\(output.stderr)")
        #expect(!output.stderr.contains("feed 'good'"), "a good plugin gets no warning: \(output.stderr)")
    }
}
