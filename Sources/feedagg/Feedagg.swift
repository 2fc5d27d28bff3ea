import ArgumentParser
import FeedCore
import FeedaggKit
import Foundation

/// `feedagg`: declare feeds in YAML, pull them, read one merged, paged stream.
@main
struct Feedagg: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedagg",
        abstract: "Merge many paginated web APIs into one paged stream.",
        discussion: """
            Exit status: 0 success; 2 usage or configuration error (nothing fetched);
            3 some feeds failed (the others are printed); 4 every feed failed; 1 internal error.
            """,
        subcommands: [Pull.self, Validate.self, Sources.self, Record.self],
        defaultSubcommand: Pull.self)

    /// Runs the command and maps every error to a documented exit status.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ConfigError {
            Console().error(String(describing: error))
            Foundation.exit(ExitStatus.usageOrConfig.rawValue)
        } catch let error as ExitCode {
            Foundation.exit(error.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success || code == .validationFailure || code.rawValue == 64 {
                // Help, version, and usage errors: argument-parser's own message.
                let message = fullMessage(for: error)
                if code == .success {
                    print(message)
                    Foundation.exit(0)
                }
                Console().error(message)
                Foundation.exit(ExitStatus.usageOrConfig.rawValue)
            }
            Console().error("error: \(error)")
            Foundation.exit(ExitStatus.internalError.rawValue)
        }
    }
}

/// Options shared by commands that read feeds.yaml.
struct ConfigOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "The feeds file.")
    var config: String = "feeds.yaml"
}

/// Options of commands that print the stream.
struct StreamOptions: ParsableArguments {
    @Option(help: "Page of the merged stream to print (1-based).")
    var page: Int = 1

    @Option(help: "Items per page.")
    var perPage: Int = 20

    @Option(help: "Output format: table, json or jsonl.")
    var format: Format = .table

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, jsonl
        var output: OutputFormat { OutputFormat(rawValue: rawValue) ?? .table }
    }

    func validate() throws {
        guard page >= 1 else { throw ValidationError("--page must be 1 or more") }
        guard (1...10_000).contains(perPage) else { throw ValidationError("--per-page must be between 1 and 10000") }
    }
}

extension Feedagg {
    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch every feed and print the first page of the merged stream.")

        @OptionGroup var config: ConfigOptions
        @OptionGroup var stream: StreamOptions

        @Option(help: "Serve recorded exchanges from this folder (e.g. Fixtures) instead of the network.")
        var replay: String?

        @Option(help: "Also record every exchange into this folder, credentials scrubbed.")
        var recordTo: String?

        @Flag(name: .shortAndLong, help: "Log every HTTP request to standard error.")
        var verbose = false

        @Flag(name: .shortAndLong, help: "Print no per-feed summary (failures are still reported).")
        var quiet = false

        func run() async throws {
            let console = Console()
            let report = try await Aggregator(console: console).pull(
                PullSettings(
                    configPath: config.config, replayDirectory: replay, verbose: verbose, quiet: quiet,
                    recordDirectory: recordTo))
            let page = UnifiedStream.page(report.entries, page: stream.page, perPage: stream.perPage)
            console.output(StreamRenderer.render(page, format: stream.format.output, width: terminalWidth()))
            throw ExitCode(report.exitStatus.rawValue)
        }
    }

    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pull one feed and write its exchanges as fixtures (credentials and cookies scrubbed).")

        @OptionGroup var config: ConfigOptions

        @Option(help: "The feed to record.")
        var feed: String

        @Option(help: "Folder to write the exchanges into (e.g. Fixtures/NAME).")
        var out: String

        @Option(
            help: """
                Fetch from this origin instead of the feed's base_url (e.g. a local stand-in server); \
                the fixtures are written as if from the feed's own base_url.
                """)
        var baseURL: String?

        func validate() throws {
            if let baseURL, URL(string: baseURL)?.host == nil { throw ValidationError("--base-url must be an absolute URL") }
        }

        func run() async throws {
            var settings = PullSettings(configPath: config.config, recordDirectory: out)
            settings.onlyFeeds = [feed]
            settings.baseURLOverride = baseURL.flatMap(URL.init(string:))
            let report = try await Aggregator().pull(settings)
            throw ExitCode(report.exitStatus.rawValue)
        }
    }

    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check feeds.yaml without fetching anything.")

        @OptionGroup var config: ConfigOptions

        func run() async throws {
            let aggregator = Aggregator()
            let (document, feeds) = try aggregator.load(configPath: config.config)
            for warning in document.warnings { aggregator.console.error(warning) }
            var lines = ["\(config.config): \(feeds.count) feeds OK"]
            for feed in feeds {
                lines.append(
                    "  \(feed.name) (\(feed.source.typeName)): \(Redaction.redact(feed.context.baseURL)), "
                        + "\(feed.source.pagination.name) pagination, \(feed.context.pageSize) per page"
                        + (feed.context.maxPages.map { ", at most \($0) pages" } ?? ""))
            }
            aggregator.console.output(lines.joined(separator: "\n") + "\n")
        }
    }

    struct Sources: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the source types, their parameters and their pagination.")

        func run() throws {
            var lines: [String] = []
            for descriptor in SourceRegistry.builtIn.descriptors {
                lines.append("\(descriptor.typeName): \(descriptor.summary)")
                lines.append("  pagination: \(descriptor.pagination)")
                let base = descriptor.defaultBaseURL.isEmpty ? "none" : descriptor.defaultBaseURL
                lines.append(
                    "  base_url default: \(base); per_page default \(descriptor.defaultPageSize), "
                        + "max \(descriptor.maxPageSize)")
                for parameter in descriptor.parameters {
                    let required = parameter.required ? ", required" : ""
                    lines.append("  \(parameter.name) (\(parameter.kind.rawValue)\(required)): \(parameter.summary)")
                }
                if let additional = descriptor.additionalParameters {
                    lines.append("  other keys: \(additional)")
                }
                lines.append("")
            }
            lines.append("Every feed also accepts:")
            for parameter in FeedContext.commonParameters {
                lines.append("  \(parameter.name) (\(parameter.kind.rawValue)): \(parameter.summary)")
            }
            print(lines.joined(separator: "\n"))
        }
    }
}

/// Columns of the terminal on standard output, or 120.
func terminalWidth() -> Int {
    var size = winsize()
    if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
    return 120
}
