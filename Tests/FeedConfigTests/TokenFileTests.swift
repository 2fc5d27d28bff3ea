import FeedCore
import FeedaggTesting
import Foundation
import Testing

@testable import FeedConfig

/// A temporary folder holding a feeds.yaml and secret files with chosen permissions.
private struct SecretsFolder {
    let folder: TemporaryFolder
    var url: URL { folder.url }

    init() throws {
        folder = try TemporaryFolder("feedconfig-secrets")
    }

    /// Writes `text` to `name` (subfolders created) with permissions `mode`.
    @discardableResult
    func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
        return file.path
    }

    /// Loads `yaml` written as `feeds.yaml` in the folder, through libyaml and the validator.
    func load(_ yaml: String, environment: [String: String] = [:]) throws -> FeedsDocument {
        let config = try write("feeds.yaml", yaml, mode: 0o644)
        return try FeedsLoader.load(path: config, sources: TestSources.all, environment: environment)
    }

    /// The rendered error `yaml` fails with (or a marker).
    func error(_ yaml: String, environment: [String: String] = [:]) throws -> String {
        do {
            _ = try load(yaml, environment: environment)
            return "<no error>"
        } catch {
            return String(describing: error)
        }
    }

    var configPath: String { url.appendingPathComponent("feeds.yaml").path }

    func remove() { folder.remove() }
}

private let secret = "ghp_SENTINEL_0123456789abcdef"

@Suite("token_file: secrets from files only their owner can read")
struct TokenFileTests {
    @Test("a 0600 file's text (trailing newline trimmed) is the token; relative paths start at feeds.yaml's folder, ~/ at $HOME")
    func readsTheToken() throws {
        let folder = try SecretsFolder()
        defer { folder.remove() }
        try folder.write("secrets/gh", secret + "\n")
        let home = try folder.write("home/.gh-token", secret + "-home\r\n")
        let document = try folder.load(
            """
            feeds:
              - name: relative
                source: github.repos
                org: acme
                token_file: secrets/gh
              - name: home
                source: github.members
                org: acme
                token_file: ~/.gh-token
            """, environment: ["HOME": URL(fileURLWithPath: home).deletingLastPathComponent().path])
        #expect(try document.feeds[0].parameters.secret("token")?.value == secret)
        #expect(try document.feeds[1].parameters.secret("token")?.value == secret + "-home")
        #expect(document.feeds[0].parameters.value("token_file") == nil, "sources only ever see 'token'")
    }

    @Test("defaults: token_file applies to every feed that takes a token; a feed's own token wins; consumer_key_file too")
    func defaultsAndOtherSecrets() throws {
        let folder = try SecretsFolder()
        defer { folder.remove() }
        try folder.write("gh", secret)
        try folder.write("px", "px-key\n")
        let document = try folder.load(
            """
            defaults:
              token_file: gh
            feeds:
              - name: a
                source: github.repos
                org: acme
              - name: b
                source: github.gists
                token: literal-override
              - name: c
                source: photos.500px
                consumer_key_file: px
            """)
        #expect(try document.feeds[0].parameters.secret("token")?.value == secret)
        #expect(try document.feeds[1].parameters.secret("token")?.value == "literal-override")
        #expect(try document.feeds[2].parameters.secret("consumer_key")?.value == "px-key")
    }

    @Test("a file readable or writable by group or others is refused at the key, saying how to fix it", arguments: [
        (0o644, "is readable by others (mode 0644); chmod 600 it", "readable"),
        (0o640, "is readable by others (mode 0640); chmod 600 it", "readable"),
        (0o604, "is readable by others (mode 0604); chmod 600 it", "readable"),
        (0o620, "is writable by others (mode 0620); chmod 600 it", "writable"),
        (0o602, "is writable by others (mode 0602); chmod 600 it", "writable"),
    ])
    func refusesOpenPermissions(mode: Int, message: String, what: String) throws {
        let folder = try SecretsFolder()
        defer { folder.remove() }
        try folder.write("gh", secret, mode: mode)
        let rendered = try folder.error(
            """
            feeds:
              - name: a
                source: github.repos
                org: acme
                token_file: gh
            """)
        #expect(
            rendered == """
                \(folder.configPath):5:5: error: token_file gh \(message)
                      token_file: gh
                      ^
                  note: a file holding a secret must be \(what) by its owner only, like an ssh key
                """)
        #expect(!rendered.contains(secret))
    }

    @Test("0400 is accepted as well as 0600")
    func readOnlyForOwner() throws {
        let folder = try SecretsFolder()
        defer { folder.remove() }
        try folder.write("gh", secret, mode: 0o400)
        let document = try folder.load("feeds:\n  - name: a\n    source: github.repos\n    org: acme\n    token_file: gh\n")
        #expect(try document.feeds[0].parameters.secret("token")?.value == secret)
    }

    @Test("token and token_file in one feed conflict")
    func conflict() throws {
        let folder = try SecretsFolder()
        defer { folder.remove() }
        try folder.write("gh", secret)
        let rendered = try folder.error(
            """
            feeds:
              - name: a
                source: github.repos
                org: acme
                token: ${GITHUB_TOKEN}
                token_file: gh
            """, environment: ["GITHUB_TOKEN": "from-env"])
        #expect(
            rendered == """
                \(folder.configPath):6:5: error: 'token' and 'token_file' are both set: use one
                      token_file: gh
                      ^
                  note: 'token' is set at \(folder.configPath):5:5
                """)
    }

    @Test("a missing, empty, multi-line or non-file token_file is a located error that never quotes the content")
    func unusableFiles() throws {
        let folder = try SecretsFolder()
        defer { folder.remove() }
        try folder.write("empty", "  \n")
        try folder.write("two-lines", secret + "\nsecond-line\n")
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("dir"), withIntermediateDirectories: true)
        func yaml(_ path: String) -> String {
            "feeds:\n  - name: a\n    source: github.repos\n    org: acme\n    token_file: \(path)\n"
        }
        func firstLine(_ path: String) throws -> String {
            String(try folder.error(yaml(path)).split(separator: "\n")[0])
        }
        let location = "\(folder.configPath):5:5: error: "
        #expect(try firstLine("missing") == location + "cannot read token_file missing: No such file or directory")
        #expect(try firstLine("empty") == location + "token_file empty is empty")
        #expect(
            try firstLine("two-lines")
                == location + "token_file two-lines holds more than one line (or control characters): it should hold the secret alone")
        #expect(try firstLine("dir") == location + "token_file dir is not a regular file")
        #expect(!(try folder.error(yaml("two-lines"))).contains(secret))
    }

    @Test("misspelt token_file: did-you-mean; a source without a token refuses it")
    func unknownKeys() throws {
        let folder = try SecretsFolder()
        defer { folder.remove() }
        let misspelt = try folder.error("feeds:\n  - name: a\n    source: github.repos\n    org: acme\n    token_fiel: gh\n")
        #expect(misspelt.contains("error: unknown parameter 'token_fiel' for source type 'github.repos'"), "\(misspelt)")
        #expect(misspelt.contains("help: did you mean 'token_file'?"), "\(misspelt)")
        let photos = try folder.error("feeds:\n  - name: p\n    source: photos.500px\n    token_file: gh\n")
        #expect(photos.contains("error: unknown parameter 'token_file' for source type 'photos.500px'"), "\(photos)")
    }

    @Test("an unset ${VAR} as token_file means no token")
    func unsetVariable() throws {
        let folder = try SecretsFolder()
        defer { folder.remove() }
        let document = try folder.load("feeds:\n  - name: a\n    source: github.repos\n    org: acme\n    token_file: ${GH_TOKEN_FILE}\n")
        #expect(try document.feeds[0].parameters.secret("token") == nil)
    }
}
