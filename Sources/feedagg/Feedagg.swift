import ArgumentParser
import FeedCore
import FeedaggKit
import FeedStore
import Foundation

/// `feedagg`: declare feeds in YAML, pull them, read one merged, paged stream.
@main
struct Feedagg: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedagg",
        abstract: "Merge many paginated web APIs into one paged stream.",
        discussion: """
            Exit status: 0 success; 2 usage or configuration error (nothing fetched);
            3 some feeds failed (the others are printed); 4 every feed failed;
            5 the store is unavailable (locked by another feedagg, damaged, unwritable); 1 internal error.
            """,
        subcommands: [Pull.self, Show.self, Feeds.self, Prune.self, Validate.self, Sources.self, Record.self],
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
        } catch let error as StoreError {
            Console().error("feedagg: \(error)")
            Foundation.exit(
                error.kind == .invalidCursor ? ExitStatus.usageOrConfig.rawValue : ExitStatus.storeUnavailable.rawValue)
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

/// The store option.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The store (SQLite).",
            discussion: "Default: $XDG_DATA_HOME/feedagg/feedagg.sqlite, else ~/.local/share/feedagg/feedagg.sqlite.",
            valueName: "file"))
    var db: String?

    var location: StoreLocation { db.map(StoreLocation.file) ?? .standard }
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
        @OptionGroup var store: StoreOptions
        @OptionGroup var stream: StreamOptions

        @Option(
            help: """
                Serve recorded exchanges from this folder (e.g. Fixtures) instead of the network \
                (without --db, into a temporary store).
                """)
        var replay: String?

        @Flag(help: "Walk every feed from page 1: no early stop at stored items, no 'since' watermark.")
        var full = false

        @Option(name: .customLong("feed"), help: "Pull only this feed (repeatable); the others keep their stored items.")
        var feeds: [String] = []

        @Option(help: "Also record every exchange into this folder, credentials scrubbed.")
        var recordTo: String?

        @Flag(name: .shortAndLong, help: "Log every HTTP request to standard error.")
        var verbose = false

        @Flag(name: .shortAndLong, help: "Print no per-feed summary (failures are still reported).")
        var quiet = false

        @Option(
            help: ArgumentHelp(
                "Fetch only the pages needed to know the N newest items, store them, and print those N items.",
                discussion: """
                    Date-ordered feeds (e.g. github.repos with sort: updated) are read page by page and \
                    stop as soon as the newest N items across all feeds are certain; feeds that are not \
                    date-ordered are fetched in full. Undated items come after every dated one. The next \
                    pull without --limit walks every page of each feed.
                    """,
                valueName: "n"))
        var limit: Int?

        func validate() throws {
            guard let limit else { return }
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 10000") }
            if full { throw ValidationError("--limit reads only the newest pages: it cannot be combined with --full") }
            if stream.page != 1 { throw ValidationError("--limit prints the newest items: it cannot be combined with --page") }
            if recordTo != nil { throw ValidationError("--limit cannot be combined with --record-to (a recording holds whole feeds)") }
        }

        func run() async throws {
            let console = Console()
            var settings = PullSettings(
                configPath: config.config, replayDirectory: replay, verbose: verbose, quiet: quiet,
                recordDirectory: recordTo)
            settings.store = store.db.map(StoreLocation.file)
            settings.refresh = full ? .full : .incremental
            settings.onlyFeeds = feeds
            settings.page = stream.page
            settings.perPage = stream.perPage
            settings.limit = limit
            let report = try await Aggregator(console: console).pull(settings)
            console.output(report.rendered(stream.format.output, width: terminalWidth()))
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

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a page of the merged stream from the store, without any network.",
            discussion: """
                Page with --page N, or with a cursor: every JSON page carries next_cursor, and \
                `--after CURSOR` prints the entries after it. A cursor never repeats or skips an entry, \
                even while a pull inserts new ones (those sort before it).
                """)

        @OptionGroup var config: ConfigOptions
        @OptionGroup var store: StoreOptions
        @OptionGroup var stream: StreamOptions

        @Option(name: .customLong("feed"), help: "Only this feed (repeatable).")
        var feeds: [String] = []

        @Option(name: .customLong("source"), help: "Only feeds of this source type (repeatable), e.g. github.repos.")
        var sources: [String] = []

        @Option(help: "Print the entries after this cursor (the next_cursor of an earlier page).")
        var after: String?

        func validate() throws {
            if after != nil && stream.page != 1 { throw ValidationError("use either --page or --after, not both") }
        }

        func run() throws {
            var settings = ShowSettings(configPath: config.config)
            settings.store = store.location
            settings.feeds = feeds
            settings.sources = sources
            settings.page = stream.page
            settings.perPage = stream.perPage
            settings.after = after
            let page = try Aggregator().show(settings)
            Console().output(page.rendered(stream.format.output, width: terminalWidth()))
        }
    }

    struct Feeds: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List each feed with its stored items, last update, last error, pages and requests.")

        @OptionGroup var config: ConfigOptions
        @OptionGroup var store: StoreOptions

        @Option(help: "Output format: table, json or jsonl.")
        var format: StreamOptions.Format = .table

        func run() throws {
            let statuses = try Aggregator().feedStatuses(configPath: config.config, store: store.location)
            Console().output(FeedStatusRenderer.render(statuses, format: format.output))
        }
    }

    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the stored feeds that feeds.yaml no longer declares (items and cache).")

        @OptionGroup var config: ConfigOptions
        @OptionGroup var store: StoreOptions

        @Flag(help: "Only list what would be deleted.")
        var dryRun = false

        func run() throws {
            let removed = try Aggregator().prune(configPath: config.config, store: store.location, dryRun: dryRun)
            let verb = dryRun ? "would delete" : "deleted"
            var lines = removed.map { "\(verb) feed '\($0.name)' (\($0.items) items)" }
            if removed.isEmpty { lines = ["nothing to prune: every stored feed is declared in \(config.config)"] }
            Console().output(lines.joined(separator: "\n") + "\n")
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
