import ArgumentParser
import ExecSource
import FeedCore
import FeedaggKit
import Foundation

extension Feedagg {
    struct Plugin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Work with exec plugins (source: exec).", subcommands: [Check.self])

        struct Check: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Run the source conformance checks against a plugin executable.",
                discussion: """
                    Runs the plugin as a feed would (no shell, only the --env variables, the current
                    folder) and checks: page 1 exits 0 with valid JSON lines; item ids are non-empty and
                    unique; page 1 run twice lists the same items; next cursors are followed and never
                    repeat; a page asked with its own etag answers not_modified or the same items.
                    Prints every problem; exit status 1 when there is one.

                    Examples:
                      feedagg plugin check -- ./plugins/notes_dir.sh ./notes
                      feedagg plugin check --env PATH=/usr/bin:/bin --param api=http://127.0.0.1:8765 -- python3 hn.py
                    """)

            @Option(name: .customLong("env"), help: ArgumentHelp("A variable of the plugin's environment.", valueName: "NAME=value"))
            var environment: [String] = []

            @Option(name: .customLong("param"), help: ArgumentHelp("An entry of the request's params.", valueName: "key=value"))
            var parameters: [String] = []

            @Option(help: ArgumentHelp("Seconds one page may take.", valueName: "seconds"))
            var timeout: Int = 30

            @Option(name: .customLong("per-page"), help: ArgumentHelp("The per_page sent.", valueName: "n"))
            var perPage: Int = 30

            @Option(name: .customLong("max-pages"), help: ArgumentHelp("Most pages followed.", valueName: "n"))
            var maxPages: Int = 5

            @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("-- then the plugin and its arguments.", valueName: "command"))
            var command: [String] = []

            func validate() throws {
                // The passthrough argument takes every word, -h and --help too: asked first, they
                // ask for this help (a plugin named so goes after --).
                if let first = command.first, first == "-h" || first == "--help" { throw CleanExit.helpRequest(self) }
                if command.first == "--" { return }
                guard !command.isEmpty else { throw ValidationError("give the plugin after --: feedagg plugin check -- ./plugin") }
            }

            func run() async throws {
                let words = command.first == "--" ? Array(command.dropFirst()) : command
                guard !words.isEmpty else { throw ValidationError("give the plugin after --: feedagg plugin check -- ./plugin") }
                func pairs(_ list: [String], _ option: String) throws -> [(String, String)] {
                    try list.map { entry in
                        guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                            throw ValidationError("--\(option) takes name=value, found '\(entry)'")
                        }
                        return (String(entry[..<equals]), String(entry[entry.index(after: equals)...]))
                    }
                }
                let environment = Dictionary(try pairs(environment, "env"), uniquingKeysWith: { _, last in last })
                let params = JSONValue.object(try pairs(parameters, "param").map { .init($0.0, .string($0.1)) })
                let plugin = ExecPlugin(
                    feedName: "check", command: words, environment: environment,
                    directory: FileManager.default.currentDirectoryPath, timeout: .seconds(max(1, timeout)),
                    maxOutputBytes: 16 << 20, parameters: params, pageSize: max(1, perPage))
                let report = await ExecPluginCheck.check(plugin, maxPages: max(1, maxPages))
                let name = TerminalText.sanitized(words.joined(separator: " "))
                if report.violations.isEmpty {
                    print("ok: \(name): \(report.pages) page(s), \(report.items) item(s), every check passed")
                    return
                }
                for violation in report.violations { print("error: \(TerminalText.sanitized(violation))") }
                print("\(report.violations.count) problem(s) with \(name) (\(report.pages) page(s), \(report.items) item(s) read)")
                throw ExitCode(1)
            }
        }
    }
}
