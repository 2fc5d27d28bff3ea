import ArgumentParser
import FeedCore
import FeedaggKit
import FeedStorage
import FeedStore
import Foundation

#if PostgreSQL
    import WorkerCoordination
#endif

extension Feedagg {
    struct Feeds: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List each feed with its stored items, last update, last error, pages and requests.",
            discussion: """
                On a PostgreSQL store shared by `feedagg serve` workers, also the worker holding each
                feed and when it is due next.

                Examples:
                  feedagg feeds
                  feedagg feeds --format json --db .build/demo/feedagg.sqlite
                """)

        @OptionGroup var config: ConfigOptions
        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("Output format: table, json or jsonl.", valueName: "format"))
        var format: StreamOptions.Format = .table

        func run() async throws {
            let aggregator = Aggregator()
            let configPath = try config.path(orNoneWith: store)
            var statuses = try aggregator.feedStatuses(configPath: configPath, store: store.location)
            #if PostgreSQL
                if case .postgres(let text) = aggregator.configuredLocation(store.location, config: configPath) {
                    await addWorkerSchedule(to: &statuses, url: try PostgresURL(text, environment: aggregator.environment))
                }
            #endif
            Console().output(FeedStatusRenderer.render(statuses, format: format.output))
        }

        #if PostgreSQL
            /// Each feed's worker and next due time from the schedule `feedagg serve` workers share
            /// in the database (nothing when no worker ever ran there). The store was read already:
            /// a schedule that cannot be read is a warning, and the list is printed without it.
            func addWorkerSchedule(to statuses: inout [FeedStatus], url: PostgresURL) async {
                do {
                    guard let schedule = try await WorkerCoordinator.readSchedule(url) else { return }
                    let byFeed = Dictionary(schedule.map { ($0.feed, $0) }, uniquingKeysWith: { first, _ in first })
                    for index in statuses.indices {
                        guard let entry = byFeed[statuses[index].name] else { continue }
                        statuses[index].workerSchedule = .init(worker: entry.heldBy, nextDueAt: entry.nextDueAt)
                    }
                } catch {
                    Console().error("feedagg feeds: warning: cannot read the workers' schedule of \(url.redacted): \(error)")
                }
            }
        #endif
    }
}
