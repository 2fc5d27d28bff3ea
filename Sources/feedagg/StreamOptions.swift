import ArgumentParser
import FeedaggKit

/// Options of commands that print the stream.
struct StreamOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Page of the merged stream to print (1-based).", valueName: "n"))
    var page: Int = 1

    @Option(help: ArgumentHelp("Items per page.", valueName: "n"))
    var perPage: Int = 20

    @Option(help: ArgumentHelp("Output format: table, json, jsonl, atom (Atom 1.0) or jsonfeed (JSON Feed 1.1).", valueName: "format"))
    var format: Format = .table

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, jsonl, atom, jsonfeed
        var output: OutputFormat { OutputFormat(rawValue: rawValue) ?? .table }
    }

    func validate() throws {
        guard page >= 1 else { throw ValidationError("--page must be 1 or more") }
        guard (1...10_000).contains(perPage) else { throw ValidationError("--per-page must be between 1 and 10000") }
    }
}
