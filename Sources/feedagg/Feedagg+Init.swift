import ArgumentParser
import FeedCore
import FeedaggKit
import FeedStore
import Foundation

extension Feedagg {
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a commented starter feeds.yaml (one feed per source type); never overwrites a file.")

        @Option(name: .shortAndLong, help: ArgumentHelp("The file to write.", valueName: "file"))
        var config: String?

        @Argument(help: ArgumentHelp("The file to write (default: ./feeds.yaml).", valueName: "file"))
        var path: String?

        func validate() throws {
            if config != nil && path != nil { throw ValidationError("give the file either as an argument or with --config, not both") }
        }

        func run() throws {
            let target = path ?? config ?? ConfigDiscovery.fileName
            let feeds = try StarterConfig.create(at: target)
            let commented = StarterConfig.commentedTypes()
            let note = commented.isEmpty ? "" : " (commented out, as they need something of yours: \(commented.joined(separator: ", ")))"
            Console().output(
                """
                wrote \(target): \(Plural.of(feeds, "example feed")), one per source type\(note)
                next: export GITHUB_TOKEN=… (optional), edit \(target), then
                  feedagg validate\(target == ConfigDiscovery.fileName ? "" : " --config \(target)")
                  feedagg pull\(target == ConfigDiscovery.fileName ? "" : " --config \(target)")

                """)
        }
    }
}
