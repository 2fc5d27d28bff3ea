import FeedaggTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `NAME_file: PATH` in an exec feed's `env:`, through the real binary.
@Suite("source: exec env secrets from files (NAME_file)")
struct ExecSecretFileCLITests {
    static let secret = "s3cr3t-t0ken-41"

    /// A folder with the token file (`mode`), a plugin that checks it received the token, and a
    /// feeds.yaml whose `env:` is `env`.
    static func setUp(mode: mode_t, env: String) throws -> (TemporaryFolder, URL) {
        let folder = try TemporaryFolder("feedagg-exec-secret")
        let token = try folder.write("hn.token", Self.secret + "\n")
        chmod(token.path, mode)
        try writeExecutable(
            "auth.sh",
            """
            #!/bin/sh
            cat >/dev/null
            [ "$HN_TOKEN" = "\(Self.secret)" ] || { echo "wrong token: $HN_TOKEN" >&2; exit 4; }
            echo "signed in with $HN_TOKEN" >&2
            echo '{"item": {"id": 1, "title": "token ok"}}'

            """, in: folder)
        let config = try folder.write("feeds.yaml", "feeds:\n  - { name: auth, source: exec, command: [./auth.sh], env: \(env) }\n")
        return (folder, config)
    }

    @Test("the plugin gets the file's text (trimmed) as NAME; it is redacted from --verbose output and never printed")
    func fileSecretReachesThePlugin() async throws {
        let (folder, config) = try Self.setUp(mode: 0o600, env: "{ HN_TOKEN_file: hn.token, PATH: /usr/bin:/bin }")
        defer { folder.remove() }
        let output = try await TestBinary.runFeedagg(
            ["pull", "--verbose", "--format", "json", "--config", config.path, "--db", folder.path("s.sqlite")],
            currentDirectory: folder.url)
        #expect(output.status == 0, "\(output.summary)")
        #expect(output.stdout.contains("token ok"), "\(output.summary)")
        #expect(output.stderr.contains("signed in with REDACTED"), "\(output.stderr)")
        #expect(!output.stdout.contains(Self.secret) && !output.stderr.contains(Self.secret))
        let feeds = try await TestBinary.runFeedagg(
            ["feeds", "--config", config.path, "--db", folder.path("s.sqlite")], currentDirectory: folder.url)
        #expect(!feeds.stdout.contains(Self.secret) && !feeds.stderr.contains(Self.secret), "\(feeds.summary)")
    }

    @Test("a file others can read, or NAME set twice, is a configuration error that names the key and not the secret")
    func badFileOrBothSet() async throws {
        let (open, openConfig) = try Self.setUp(mode: 0o644, env: "{ HN_TOKEN_file: hn.token }")
        defer { open.remove() }
        let refused = try await TestBinary.runFeedagg(
            ["pull", "--config", openConfig.path, "--db", open.path("s.sqlite")], currentDirectory: open.url)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("HN_TOKEN_file hn.token"), "\(refused.stderr)")
        #expect(!refused.stderr.contains(Self.secret) && !refused.stdout.contains(Self.secret))

        let (both, bothConfig) = try Self.setUp(mode: 0o600, env: "{ HN_TOKEN: x, HN_TOKEN_file: hn.token }")
        defer { both.remove() }
        let twice = try await TestBinary.runFeedagg(
            ["pull", "--config", bothConfig.path, "--db", both.path("s.sqlite")], currentDirectory: both.url)
        #expect(twice.status != 0)
        #expect(twice.stderr.contains("'HN_TOKEN' and 'HN_TOKEN_file' are both set"), "\(twice.stderr)")
    }
}
