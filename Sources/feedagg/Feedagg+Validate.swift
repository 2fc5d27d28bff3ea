import ArgumentParser
import FeedCore
import FeedaggKit
import FeedStore
import Foundation

extension Feedagg {
    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check feeds.yaml without fetching anything.",
            discussion: """
                Every error of the file is reported, each with its line and a caret, then their count. \
                Every query (saved views, filter rules) is parsed: one that does not is an error at its \
                column.

                Examples:
                  feedagg validate
                  feedagg validate --config ~/.config/feedagg/feeds.yaml
                """)

        @OptionGroup var config: ConfigOptions

        func run() async throws {
            let aggregator = Aggregator()
            let configPath = try config.path()
            let (document, feeds) = try aggregator.load(configPath: configPath)
            for warning in document.warnings { aggregator.console.error(warning) }
            var lines = ["\(configPath): \(Plural.of(feeds.count, "feed")) OK"]
            for (feed, declaration) in zip(feeds, document.feeds) {
                let reads =
                    feed.source.validationSummary(context: feed.context)
                    ?? "\(Redaction.shown(feed.context.baseURL)), \(feed.source.pagination.name) pagination, "
                    + "\(feed.context.pageSize) per page"
                lines.append(
                    "  \(feed.name) (\(feed.source.typeName)): \(reads)"
                        + (feed.context.maxPages.map { ", at most \(Plural.of($0, "page"))" } ?? "")
                        + (declaration.credential.map { ", \($0)" } ?? "")
                        + (declaration.filters.isEmpty ? "" : ", " + Plural.of(declaration.filters.count, "filter rule")))
                for warning in feed.source.setupWarnings() { aggregator.console.error(warning.description) }
            }
            if !document.filters.global.isEmpty {
                lines.append("  every feed: " + Plural.of(document.filters.global.count, "filter rule") + " (settings)")
            }
            if !document.views.isEmpty {
                lines.append("  views: " + document.views.map(\.name).joined(separator: ", "))
            }
            aggregator.console.output(lines.joined(separator: "\n") + "\n")
        }
    }
}
