import ArgumentParser
import FeedCore
import FeedSearch
import FeedaggKit
import FeedStore
import FeedStorage
import Foundation

extension Feedagg {
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a page of the merged stream from the store, without any network.",
            discussion: """
                Page with --page N, or with a cursor: every JSON page carries next_cursor, and \
                `--after CURSOR` prints the entries after it. A cursor never repeats or skips an entry, \
                even while a pull inserts new ones (those sort before it).

                Examples:
                  feedagg show                    the first page, newest first
                  feedagg show --page 3 --per-page 50
                  feedagg show --source github.repos --format json
                  feedagg show --after CURSOR     the page after a next_cursor
                  feedagg show --feed repos --format atom
                                                  one feed as Atom (or: jsonfeed)
                  feedagg show --query 'swift -beta newer:7d'
                                                  search (docs/query.md)
                  feedagg show --view security    a saved view of feeds.yaml (views:)

                The configuration's filter rules (filters: under settings: and per feed) apply to \
                every read; `feedagg filters` previews them.
                """)

        @OptionGroup var config: ConfigOptions
        @OptionGroup var store: StoreOptions
        @OptionGroup var stream: StreamOptions

        @Option(
            name: .customLong("feed"), help: ArgumentHelp("Only this feed (repeatable).", valueName: "name"),
            completion: .custom(FeedNameCompletion.candidates))
        var feeds: [String] = []

        @Option(
            name: .customLong("source"),
            help: ArgumentHelp("Only feeds of this source type (repeatable), e.g. github.repos.", valueName: "type"),
            completion: .list(SourceRegistry.builtIn.descriptors.map(\.typeName)))
        var sources: [String] = []

        @Option(
            help: ArgumentHelp("Print the entries after this cursor (the next_cursor of an earlier page).", valueName: "cursor"))
        var after: String?

        @Flag(
            help: ArgumentHelp(
                "Print every page (after --after, if given), read one page at a time.",
                discussion: """
                    table: one header, every row, then the count; json: one document \
                    {"total_items":N,"items":[...]}; jsonl: one item per line; atom, jsonfeed: one \
                    feed document of every entry.
                    """))
        var all = false

        @Flag(help: "Table output: add a URL column (lines are then not cut to the terminal's width).")
        var wide = false

        @Option(
            name: .customLong("query"), parsing: .unconditional,
            help: ArgumentHelp(
                "Only the entries this query matches (docs/query.md), e.g. 'swift -beta newer:7d'.", valueName: "query"))
        var query: String?

        @Option(
            help: ArgumentHelp(
                "Only the entries of this saved view (views: in feeds.yaml); with --query, both must match.",
                valueName: "name"))
        var view: String?

        func validate() throws {
            if after != nil && stream.page != 1 { throw ValidationError("use either --page or --after, not both") }
            if all && stream.page != 1 { throw ValidationError("--all prints every page: it cannot be combined with --page") }
        }

        func run() throws {
            var settings = ShowSettings(configPath: try config.path(orNoneWith: store))
            settings.store = store.location
            settings.feeds = feeds
            settings.sources = sources
            settings.page = stream.page
            settings.perPage = stream.perPage
            settings.after = after
            settings.view = view
            // A malformed query is a usage error: `query:1:COL: error: …` and a caret (exit 2).
            if let query { settings.query = try SearchQuery(parsing: query) }
            let console = Console()
            let style = TableStyle.standardOutput(wide: wide)
            let aggregator = Aggregator(console: console)
            // Feed documents are named after the feeds they list (docs/feed-formats.md), which the
            // listing reports as it opens the store.
            var identity = FeedIdentity(feeds: [])
            let format = stream.format.output
            func listed(_ feeds: [String]) {
                if format.isFeedDocument { identity = FeedIdentity(feeds: feeds, sources: sources, view: view, search: query) }
            }
            if all {
                var printer: StreamPrinter?
                try aggregator.showAll(settings, listed: listed) { page in
                    if printer == nil {
                        printer = StreamPrinter(format: format, style: style, console: console, identity: identity)
                    }
                    printer?.print(page)
                }
                printer?.finish()
                return
            }
            let page = try aggregator.show(settings, listed: listed)
            let next = ShowCommandLine(
                config: config.config.flatMap { $0 == "feeds.yaml" ? nil : $0 }, db: store.given.map(PostgresURL.redact), feeds: feeds,
                sources: sources, perPage: stream.perPage == 20 ? nil : stream.perPage, wide: wide, view: view, query: query)
            console.print(page.rendered(stream.format.output, style: style, next: next, identity: identity), style: style)
        }
    }
}
