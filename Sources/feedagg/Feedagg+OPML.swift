import ArgumentParser
import FeedCore
import FeedaggKit
import Foundation
import WebFeedSource

extension Feedagg {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import", abstract: "Add subscriptions from another reader.", subcommands: [OPML.self])

        struct OPML: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "opml",
                abstract: "Append an OPML file's subscriptions to feeds.yaml as 'source: feed' entries.",
                discussion: """
                    Comments and layout of feeds.yaml are kept: the entries are added at the end of its
                    feeds: list. A URL already in feeds.yaml (or twice in the file) and a URL that is not
                    http(s) are skipped and reported. Names come from the outlines' titles.

                    Examples:
                      feedagg import opml subscriptions.opml
                      feedagg import opml ~/Downloads/feedly.opml --config ~/.config/feedagg/feeds.yaml
                    """)

            @Argument(help: ArgumentHelp("The OPML file.", valueName: "file"), completion: .file(extensions: ["opml", "xml"]))
            var file: String

            @OptionGroup var config: ConfigOptions

            func run() async throws {
                let aggregator = Aggregator()
                let configPath = try config.path()
                let opml: OPMLDocument
                do {
                    opml = try OPMLDocument.parse(try Data(contentsOf: URL(fileURLWithPath: file)), path: file)
                } catch let error as FeedParseError {
                    aggregator.console.error("error: \(file): \(error)")
                    throw ExitCode(ExitStatus.usageOrConfig.rawValue)
                }
                let text = try String(contentsOfFile: configPath, encoding: .utf8)
                let outcome = try OPMLImport(text: text, path: configPath, environment: ProcessInfo.processInfo.environment)
                    .apply(opml.subscriptions)
                if !outcome.added.isEmpty {
                    try Data(outcome.text.utf8).write(to: URL(fileURLWithPath: configPath), options: .atomic)
                }
                var lines = ["\(configPath): \(Plural.of(outcome.added.count, "feed")) added from \(file)"]
                lines += outcome.added.map { "  + \(TerminalText.sanitized($0.name)): \(TerminalText.sanitized($0.url))" }
                if !outcome.skipped.isEmpty {
                    lines.append("\(Plural.of(outcome.skipped.count, "subscription")) skipped:")
                    lines += outcome.skipped.map { "  - \(TerminalText.sanitized($0))" }
                }
                aggregator.console.output(lines.joined(separator: "\n") + "\n")
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Write feeds.yaml's subscriptions for another reader.",
            subcommands: [OPML.self])

        struct OPML: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "opml",
                abstract: "Print every 'source: feed' feed of feeds.yaml as an OPML 2.0 subscription list.",
                discussion: """
                    Examples:
                      feedagg export opml > subscriptions.opml
                    """)

            @OptionGroup var config: ConfigOptions

            func run() async throws {
                let aggregator = Aggregator()
                let (_, feeds) = try aggregator.load(configPath: try config.path())
                let subscriptions = feeds.compactMap { feed -> OPMLDocument.Subscription? in
                    guard let source = feed.source as? WebFeedSource else { return nil }
                    return OPMLDocument.Subscription(title: feed.name, url: source.firstPageURL.absoluteString)
                }
                aggregator.console.output(OPMLDocument.render(subscriptions, title: "feedagg subscriptions"))
            }
        }
    }
}
