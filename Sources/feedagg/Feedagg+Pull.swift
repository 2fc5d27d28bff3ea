import ArgumentParser
import FeedCore
import FeedaggKit
import FeedStore
import FeedStorage
import Foundation

extension Feedagg {
    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch every feed and print the first page of the merged stream.",
            discussion: """
                Examples:
                  feedagg pull                    every feed of ./feeds.yaml (also: feedagg)
                  feedagg pull --feed repos -v    one feed, each HTTP request logged
                  feedagg pull --limit 20         only the pages of the 20 newest items
                  feedagg pull --replay Fixtures  recorded exchanges, no network
                """)

        @OptionGroup var config: ConfigOptions
        @OptionGroup var store: StoreOptions
        @OptionGroup var stream: StreamOptions

        @Option(
            help: ArgumentHelp(
                """
                Serve recorded exchanges from this folder (e.g. Fixtures) instead of the network \
                (without --db, into a store kept for this folder and feeds.yaml under \
                $XDG_CACHE_HOME/feedagg, else ~/.cache/feedagg; the footer's next command names it).
                """,
                valueName: "dir"),
            completion: .directory)
        var replay: String?

        @Flag(help: "Table output: add a URL column (lines are then not cut to the terminal's width).")
        var wide = false

        @Flag(help: "Walk every feed from page 1: no early stop at stored items, no 'since' watermark.")
        var full = false

        @Option(
            name: .customLong("feed"),
            help: ArgumentHelp("Pull only this feed (repeatable); the others keep their stored items.", valueName: "name"),
            completion: .custom(FeedNameCompletion.candidates))
        var feeds: [String] = []

        @Option(
            help: ArgumentHelp("Also record every exchange into this folder, credentials scrubbed.", valueName: "dir"),
            completion: .directory)
        var recordTo: String?

        @Flag(name: .shortAndLong, help: "Log every HTTP request to standard error.")
        var verbose = false

        @Flag(
            name: .shortAndLong,
            help: "Print no per-feed summary (failures are still reported) and, when piped, no page footer.")
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
                configPath: try config.path(), replayDirectory: replay, verbose: verbose, quiet: quiet,
                recordDirectory: recordTo)
            settings.store = store.given.map(StoreLocation.parse)
            settings.refresh = full ? .full : .incremental
            settings.onlyFeeds = feeds
            settings.page = stream.page
            settings.perPage = stream.perPage
            settings.limit = limit
            settings.keepsReplayStore = true
            settings.reportsInterruption = true
            let report = try await Aggregator(console: console).pull(settings)
            let style = TableStyle.standardOutput(wide: wide)
            // The next page is read from the store this pull wrote (gone when it was temporary).
            let next =
                report.storeRemoved
                ? nil
                : ShowCommandLine(
                    config: config.config.flatMap { $0 == "feeds.yaml" ? nil : $0 },
                    db: store.given.map(PostgresURL.redact) ?? (replay != nil ? report.storePath : nil),
                    perPage: stream.perPage == 20 ? nil : stream.perPage, wide: wide)
            var rendered = report.rendered(stream.format.output, style: style, next: next)
            // --quiet: standard error carries failures only (the footer stays on a terminal's table).
            if quiet && !style.isTerminal { rendered.footer = [] }
            console.print(rendered, style: style)
            throw ExitCode(report.exitStatus.rawValue)
        }
    }
}
