import ArgumentParser
import FeedaggKit
import Foundation

extension Feedagg {
    struct Filters: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Preview the filter rules of feeds.yaml against the store, changing nothing.",
            discussion: """
                Each rule (those under settings: first, then each feed's, in file order) with its \
                action, its query, how many stored items it matches and the first few of their \
                titles; then how many entries the stream shows with the rules and without. Rules \
                never delete: an edited rule changes what the next read shows (docs/query.md).

                Examples:
                  feedagg filters
                  feedagg filters --format json
                """)

        @OptionGroup var config: ConfigOptions
        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("Output format: table (text) or json.", valueName: "format"))
        var format: StreamOptions.Format = .table

        func validate() throws {
            guard format == .table || format == .json else {
                throw ValidationError("--format must be table or json for filters")
            }
        }

        func run() throws {
            var settings = ShowSettings(configPath: try config.path())
            settings.store = store.location
            let preview = try Aggregator(console: Console()).previewFilters(settings)
            Console().output(preview.rendered(format.output))
        }
    }
}
