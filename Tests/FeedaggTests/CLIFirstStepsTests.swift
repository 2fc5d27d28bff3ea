import FeedCore
import FeedaggKit
import FeedaggTesting
import Foundation
import LoopbackServer
import Testing

// Issue 14's first steps, through the built binary: --version, unknown commands, every error of a
// configuration in one run, `pull --feed` suggestions, shell completions, help and the data the
// man page is generated from.

/// Runs `feedagg` in `folder` with its default store inside it.
private func feedagg(_ arguments: [String], in folder: TemporaryFolder) async throws -> ProcessOutput {
    var environment = TestBinary.cleanEnvironment
    environment["XDG_DATA_HOME"] = folder.url.appendingPathComponent("xdg").path
    return try await TestBinary.runFeedagg(arguments, environment: environment, currentDirectory: folder.url)
}

/// Runs `body` with a fault server serving `/orgs/acme/repos` (3 repositories) and a fresh folder;
/// the server is stopped and the folder removed however `body` ends.
private func withAcmeServer(_ body: (FaultServer, TemporaryFolder) async throws -> Void) async throws {
    let server = try await FaultServer.start()
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    do {
        server.serve("/orgs/acme/repos", .repos(ids: 1...3))
        try await body(server, folder)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

/// The commands `feedagg --help` lists.
private let commands = ["pull", "show", "feeds", "filters", "prune", "validate", "sources", "record"]

@Suite("CLI first steps: version, unknown commands, all config errors, completions, help")
struct CLIFirstStepsTests {
    @Test("`--version` prints the one version constant and exits 0")
    func version() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = try await feedagg(["--version"], in: folder)
        #expect(output.status == 0, "\(output.summary)")
        #expect(output.stdout == "feedagg \(FeedaggVersion.current)\n", "\(output.stdout)")
        #expect(FeedaggVersion.userAgent == "feedagg/\(FeedaggVersion.current)")
    }

    @Test("a typo'd command answers with a did-you-mean, exit 2, instead of pull's usage")
    func unknownCommand() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let typo = try await feedagg(["shwo", "--page", "2"], in: folder)
        #expect(typo.status == 2, "\(typo.summary)")
        #expect(typo.stdout.isEmpty)
        #expect(typo.stderr.hasPrefix("error: unknown command 'shwo'; did you mean 'show'?\n"), "\(typo.stderr)")
        #expect(typo.stderr.contains("commands: \(commands.joined(separator: ", "))"), "\(typo.stderr)")
        #expect(!typo.stderr.contains("USAGE"), "not pull's usage:\n\(typo.stderr)")

        let nothingClose = try await feedagg(["xyzzy"], in: folder)
        #expect(nothingClose.status == 2, "\(nothingClose.summary)")
        #expect(nothingClose.stderr.hasPrefix("error: unknown command 'xyzzy'\n"), "\(nothingClose.stderr)")
    }

    @Test("pull stays the default command: its options work without its name")
    func pullIsTheDefault() async throws {
        try await withAcmeServer { server, folder in
            let config = try folder.write(
                "feeds.yaml",
                """
                feeds:
                  - name: acme
                    source: github.repos
                    org: acme
                    base_url: \(server.baseURL)

                """)
            let pulled = try await feedagg(["--quiet", "--config", config.path, "--format", "jsonl"], in: folder)
            #expect(pulled.status == 0, "\(pulled.summary)")
            #expect(pulled.stdout.split(separator: "\n").count == 3, "\(pulled.stdout)")
            #expect(server.requests.count == 1)

            let missing = try await feedagg(["-c", "absent.yaml"], in: folder)
            #expect(missing.status == 2, "\(missing.summary)")
            #expect(missing.stderr.hasPrefix("error: cannot read absent.yaml: No such file or directory"), "\(missing.stderr)")
        }
    }

    /// Three feeds with three different errors (a misspelt required key, a value out of range, a
    /// source's own check), between two valid feeds, and a bad setting.
    private static func brokenConfig(base: String) -> String {
        """
        feeds:
          - name: fine
            source: github.repos
            org: acme
            base_url: \(base)
          - name: misspelt
            sourc: github.repos
            org: acme
          - name: too-big
            source: github.repos
            org: acme
            per_page: 5000
          - name: cleartext
            source: github.repos
            org: acme
            base_url: http://api.example.com
          - name: also-fine
            source: github.members
            org: acme
            base_url: \(base)
        settings:
          retries: many

        """
    }

    @Test("validate and pull report every error of the file with its line, then the count; nothing is fetched")
    func everyErrorInOneRun() async throws {
        try await withAcmeServer { server, folder in
            let config = try folder.write("feeds.yaml", Self.brokenConfig(base: server.baseURL))
            let path = config.path
            let expected = """
                \(path):7:5: error: feed 'misspelt' is missing required parameter 'source'
                      sourc: github.repos
                      ^
                  help: did you mean 'source'? ('sourc' is not a parameter)
                  known source types: \(SourceRegistry.builtIn.descriptors.map(\.typeName).sorted().joined(separator: ", "))
                \(path):12:15: error: 'per_page' must be between 1 and 100, found 5000
                      per_page: 5000
                                ^
                \(path):16:15: error: 'base_url' is plain http:// to api.example.com: tokens and data would travel unencrypted
                      base_url: http://api.example.com
                                ^
                  use https://, or set 'allow_insecure_http: true' on the feed if you really mean it
                \(path):22:12: error: 'retries' must be an integer, found 'many'
                    retries: many
                             ^
                4 errors

                """
            let validated = try await feedagg(["validate", "--config", path], in: folder)
            #expect(validated.status == 2, "\(validated.summary)")
            #expect(validated.stdout.isEmpty)
            #expect(validated.stderr == expected, "\(validated.stderr)")

            let pulled = try await feedagg(["pull", "--config", path], in: folder)
            #expect(pulled.status == 2, "\(pulled.summary)")
            #expect(pulled.stderr == expected, "\(pulled.stderr)")
            #expect(server.requests.isEmpty, "nothing is fetched with a bad configuration")
        }
    }

    @Test("a misspelt required key is pointed at, with a did-you-mean; one error renders as before")
    func misspeltRequiredKey() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write(
            "feeds.yaml",
            """
            feeds:
              - nmae: repos
                source: github.repos
                org: acme

            """)
        let output = try await feedagg(["validate", "-c", config.path], in: folder)
        #expect(output.status == 2, "\(output.summary)")
        #expect(
            output.stderr == """
                \(config.path):2:5: error: feed #1 is missing required parameter 'name'
                    - nmae: repos
                      ^
                  help: did you mean 'name'? ('nmae' is not a parameter)

                """, "\(output.stderr)")
        #expect(!output.stderr.contains("1 errors"))
    }

    @Test("`pull --feed` with an unknown name suggests the closest declared feed, exit 2, nothing fetched")
    func pullFeedSuggestion() async throws {
        try await withAcmeServer { server, folder in
            let config = try folder.write(
                "feeds.yaml",
                """
                feeds:
                  - name: acme-repos
                    source: github.repos
                    org: acme
                    base_url: \(server.baseURL)
                  - name: acme-members
                    source: github.members
                    org: acme
                    base_url: \(server.baseURL)

                """)
            let output = try await feedagg(["pull", "-c", config.path, "--feed", "acme-repo"], in: folder)
            #expect(output.status == 2, "\(output.summary)")
            #expect(
                output.stderr == """
                    error: no feed named 'acme-repo' in \(config.path)
                      did you mean 'acme-repos'?
                      declared feeds: acme-repos, acme-members

                    """, "\(output.stderr)")
            #expect(server.requests.isEmpty, "nothing is fetched for an unknown feed name")
            let store = folder.url.appendingPathComponent("xdg/feedagg/feedagg.sqlite").path
            #expect(!FileManager.default.fileExists(atPath: store), "no store is opened either")
        }
    }

    @Test("the bash completion script completes files for --config/--db, folders for --replay, feed names for --feed")
    func bashCompletionScript() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = try await feedagg(["--generate-completion-script", "bash"], in: folder)
        #expect(output.status == 0, "\(output.summary)")
        let script = output.stdout
        // The option cases of `_feedagg_pull`, one per value kind.
        let pull = try #require(script.range(of: "_feedagg_pull() {")).upperBound
        let end = try #require(script[pull...].range(of: "\n}\n")).lowerBound
        let body = String(script[pull..<end])
        #expect(body.contains("'--config'|'-c')\n        __feedagg_add_completions -o plusdirs -fX '!*.@(yaml|yml)'"), "\(body)")
        #expect(body.contains("'--db')\n        __feedagg_add_completions -f"), "\(body)")
        #expect(body.contains("'--replay')\n        __feedagg_add_completions -d"), "\(body)")
        #expect(body.contains("'--record-to')\n        __feedagg_add_completions -d"), "\(body)")
        #expect(body.contains("---completion pull -- --feed"), "the feed-name hook:\n\(body)")
        #expect(script.contains("---completion show -- --feed"))
        let types = SourceRegistry.builtIn.descriptors.map(\.typeName).joined(separator: "'$'\\n''")
        #expect(script.contains("'--source')\n        __feedagg_add_completions -W '\(types)'"), "source types listed")

        let zsh = try await feedagg(["--generate-completion-script", "zsh"], in: folder)
        #expect(zsh.status == 0)
        #expect(zsh.stdout.contains(#"{--config,-c}'[The feeds file.]:file:_files -g '\''*.yaml *.yml'\'''"#), "\(zsh.stdout)")
        #expect(zsh.stdout.contains(#"'--db[The store\: a SQLite file, or a PostgreSQL URL.]:file|url:_files'"#), "\(zsh.stdout)")
        #expect(zsh.stdout.contains("next command names it).]:dir:_files -/'"), "--replay completes folders")
        #expect(zsh.stdout.contains("---completion pull -- --feed"))
    }

    @Test("the --feed completion prints the feed names of the configuration on the command line, nothing for a broken one")
    func feedNameCompletion() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write(
            "mine.yaml",
            """
            feeds:
              - name: swift-repos
                source: github.repos
                org: apple
              - name: photos
                source: photos.500px
                feature: popular
              - name: swift-members
                source: github.members
                org: apple

            """)
        // As the bash script calls it: ---completion <command> -- <option> <word index> <cursor> <words…>
        let all = try await feedagg(
            ["---completion", "pull", "--", "--feed", "5", "0", "feedagg", "pull", "-c", config.path, "--feed", ""], in: folder)
        #expect(all.status == 0, "\(all.summary)")
        #expect(all.stdout.split(separator: "\n") == ["swift-repos", "photos", "swift-members"], "\(all.stdout)")

        let prefixed = try await feedagg(
            ["---completion", "show", "--", "--feed", "4", "2", "feedagg", "show", "--config=\(config.path)", "--feed", "sw"],
            in: folder)
        #expect(prefixed.stdout.split(separator: "\n") == ["swift-repos", "swift-members"], "\(prefixed.stdout)")

        let broken = try folder.write("broken.yaml", "feeds:\n  - name: [unclosed\n")
        let nothing = try await feedagg(
            ["---completion", "pull", "--", "--feed", "5", "0", "feedagg", "pull", "-c", broken.path, "--feed", ""], in: folder)
        #expect(nothing.status == 0, "\(nothing.summary)")
        #expect(nothing.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(nothing.stdout)")
        #expect(nothing.stderr.isEmpty, "\(nothing.stderr)")

        // Without --config: ./feeds.yaml of the current directory (missing here: nothing).
        let absent = try await feedagg(
            ["---completion", "pull", "--", "--feed", "3", "0", "feedagg", "pull", "--feed", ""], in: folder)
        #expect(absent.status == 0 && absent.stderr.isEmpty, "\(absent.summary)")
        #expect(absent.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    @Test("--help of every command shows examples and value names that say what they are")
    func helpExamplesAndValueNames() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for command in [[]] + commands.map({ [$0] }) {
            let output = try await feedagg(command + ["--help"], in: folder)
            #expect(output.status == 0, "\(command): \(output.summary)")
            #expect(output.stdout.contains("Examples:\n  feedagg"), "\(command):\n\(output.stdout)")
        }
        let pull = try await feedagg(["pull", "--help"], in: folder).stdout
        for option in ["--config <file>", "--db <file|url>", "--replay <dir>", "--record-to <dir>", "--feed <name>",
            "--limit <n>", "--page <n>", "--per-page <n>", "--format <format>"]
        {
            #expect(pull.contains(option), "\(option) in:\n\(pull)")
        }
        let show = try await feedagg(["show", "--help"], in: folder).stdout
        for option in ["--after <cursor>", "--source <type>", "--feed <name>", "--query <query>", "--view <name>"] {
            #expect(show.contains(option), "\(option) in:\n\(show)")
        }
    }

    @Test("the help dump the man page is generated from holds every command, its examples and value names")
    func manualSource() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = try await feedagg(["--experimental-dump-help"], in: folder)
        #expect(output.status == 0, "\(output.summary)")
        let json = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
        let root = try #require(json["command"] as? [String: Any])
        #expect(root["commandName"] as? String == "feedagg")
        let subcommands = try #require(root["subcommands"] as? [[String: Any]])
        let byName = Dictionary(subcommands.compactMap { sub in (sub["commandName"] as? String).map { ($0, sub) } }) { a, _ in a }
        for command in commands {
            let entry = try #require(byName[command], "\(command) is in the manual")
            #expect((entry["discussion"] as? String)?.contains("Examples:") == true, "\(command)")
        }
        let pullArguments = try #require(byName["pull"]?["arguments"] as? [[String: Any]])
        let config = try #require(pullArguments.first { ($0["preferredName"] as? [String: Any])?["name"] as? String == "config" })
        #expect(config["valueName"] as? String == "file")
        #expect(String(describing: config["completionKind"] ?? "").contains("yaml"))
    }
}
