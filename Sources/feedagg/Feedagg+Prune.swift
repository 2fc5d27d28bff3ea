import ArgumentParser
import FeedCore
import FeedaggKit
import FeedStore
import Foundation

extension Feedagg {
    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the stored feeds that feeds.yaml no longer declares (items and cache).",
            discussion: """
                Only feeds this feeds.yaml pulled are deleted: a store shared with another configuration \
                keeps that configuration's feeds. prune lists what it deletes and asks on a terminal; \
                elsewhere it deletes nothing without --yes (exit status 2).

                Examples:
                  feedagg prune --dry-run     list what would be deleted
                  feedagg prune
                """)

        @OptionGroup var config: ConfigOptions
        @OptionGroup var store: StoreOptions

        @Flag(help: "Only list what would be deleted.")
        var dryRun = false

        @Flag(name: [.customShort("y"), .long], help: "Delete without asking.")
        var yes = false

        @Flag(help: "Also delete undeclared feeds whose configuration is unknown (stored by an older feedagg).")
        var includeUnowned = false

        func run() throws {
            let configPath = try config.path()
            let aggregator = Aggregator()
            let console = aggregator.console
            let plan = try aggregator.prunePlan(
                configPath: configPath, store: store.location, includeUnowned: includeUnowned)
            for (name, owner) in plan.otherConfigs {
                console.error("keeping feed '\(name)': it belongs to \(owner)")
            }
            for (name, items) in plan.unowned {
                console.error(
                    "keeping feed '\(name)' (\(Plural.of(items, "item"))): stored by an older feedagg, its configuration "
                        + "is unknown (--include-unowned deletes it)")
            }
            guard !plan.doomed.isEmpty else {
                console.output("nothing to prune: every stored feed of \(configPath) is declared in it\n")
                return
            }
            let listing = plan.doomed.map { "feed '\($0.name)' (\(Plural.of($0.items, "item")))" }
            if dryRun {
                console.output(listing.map { "would delete \($0)\n" }.joined())
                return
            }
            if !yes {
                guard isatty(0) == 1 else {
                    console.error(listing.map { "would delete \($0)" }.joined(separator: "\n"))
                    console.error(
                        "error: prune deletes \(Plural.of(plan.doomed.count, "feed")) from \(plan.storePath): "
                            + "pass --yes to confirm when not on a terminal (--dry-run only lists them)")
                    throw ExitCode(ExitStatus.usageOrConfig.rawValue)
                }
                console.error(listing.map { "will delete \($0)" }.joined(separator: "\n"))
                FileHandle.standardError.write(
                    Data("Delete \(Plural.of(plan.doomed.count, "feed")) from \(plan.storePath)? [y/N] ".utf8))
                let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
                guard answer == "y" || answer == "yes" else {
                    console.error("nothing deleted")
                    return
                }
            }
            try aggregator.prune(plan)
            console.output(listing.map { "deleted \($0)\n" }.joined())
        }
    }
}
