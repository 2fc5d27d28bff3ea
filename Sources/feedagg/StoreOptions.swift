import ArgumentParser
import FeedaggKit

/// `--db`: which SQLite store a command reads or writes (default: one store per feeds.yaml).
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The store (SQLite).",
            discussion: """
                Default: one store per feeds.yaml, $XDG_DATA_HOME/feedagg/stores/<dir>-<name>-<hash>.sqlite \
                (~/.local/share/feedagg/stores/…), named after the file's absolute path.
                """,
            valueName: "file"),
        completion: .file())
    var db: String?

    var location: StoreLocation { db.map(StoreLocation.file) ?? .standard }
}
