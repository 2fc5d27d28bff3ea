import ArgumentParser
import FeedCore
import FeedaggKit
import FeedStore
import Foundation

extension Feedagg {
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pull one feed and write its exchanges as fixtures (credentials and cookies scrubbed).",
            discussion: """
                Beside the exchanges, feed.json holds the feed's name, source type and parameters \
                (per_page included, secrets left out): a source's tests read it.

                Examples:
                  feedagg record --feed repos --out Fixtures/repos
                  feedagg record --feed photos --out Fixtures/photos \\
                    --base-url http://127.0.0.1:8080
                """)

        @OptionGroup var config: ConfigOptions

        @Option(
            help: ArgumentHelp("The feed to record.", valueName: "name"),
            completion: .custom(FeedNameCompletion.candidates))
        var feed: String

        @Option(
            help: ArgumentHelp("Folder to write the exchanges into (e.g. Fixtures/NAME).", valueName: "dir"),
            completion: .directory)
        var out: String

        @Option(
            help: ArgumentHelp(
                """
                Fetch from this origin instead of the feed's base_url (e.g. a local stand-in server); \
                the fixtures are written as if from the feed's own base_url.
                """,
                valueName: "url"))
        var baseURL: String?

        func validate() throws {
            if let baseURL, URL(string: baseURL)?.host == nil { throw ValidationError("--base-url must be an absolute URL") }
        }

        func run() async throws {
            var settings = PullSettings(configPath: try config.path(), recordDirectory: out)
            settings.onlyFeeds = [feed]
            settings.baseURLOverride = baseURL.flatMap(URL.init(string:))
            let report = try await Aggregator().pull(settings)
            // The feed's parameters beside the exchanges, for the source's tests (feed.json).
            try Aggregator().writeRecordedFeed(configPath: settings.configPath, feed: feed, into: out)
            throw ExitCode(report.exitStatus.rawValue)
        }
    }
}
