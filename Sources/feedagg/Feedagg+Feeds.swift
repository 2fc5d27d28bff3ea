import ArgumentParser
import FeedCore
import FeedaggKit
import FeedStore
import Foundation

extension Feedagg {
    struct Feeds: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List each feed with its stored items, last update, last error, pages and requests.",
            discussion: """
                Examples:
                  feedagg feeds
                  feedagg feeds --format json --db .build/demo/feedagg.sqlite
                """)

        @OptionGroup var config: ConfigOptions
        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("Output format: table, json or jsonl.", valueName: "format"))
        var format: StreamOptions.Format = .table

        func run() throws {
            let statuses = try Aggregator().feedStatuses(
                configPath: try config.path(orNoneWith: store), store: store.location)
            Console().output(FeedStatusRenderer.render(statuses, format: format.output))
        }
    }
}
