import ArgumentParser
import FeedaggKit
import Foundation

/// `--db`: which store a command reads or writes: a SQLite file, or a PostgreSQL URL (default: `FEEDAGG_DB`,
/// else one SQLite store per feeds.yaml).
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The store: a SQLite file, or a PostgreSQL URL.",
            discussion: """
                A PostgreSQL URL: postgres://user@host:port/db (or postgresql://; a Unix socket: \
                postgres://user@/db?host=/socketdir). \
                Default: $FEEDAGG_DB when set, else feeds.yaml's `settings: store:`, else one store per feeds.yaml, \
                $XDG_DATA_HOME/feedagg/stores/<dir>-<name>-<hash>.sqlite (~/.local/share/feedagg/stores/…), named after \
                the file's absolute path. A PostgreSQL password comes from the URL, ${VAR} in it, \
                store_password_file, or PGPASSWORD; \
                it is never printed.
                """,
            valueName: "file|url"),
        completion: .file())
    var db: String?

    /// `--db`, else `FEEDAGG_DB` (when not empty).
    var given: String? {
        db ?? ProcessInfo.processInfo.environment["FEEDAGG_DB"].flatMap { $0.isEmpty ? nil : $0 }
    }

    var location: StoreLocation { given.map(StoreLocation.parse) ?? .standard }
}
