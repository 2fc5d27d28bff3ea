import ArgumentParser
import FeedaggKit

/// Options shared by commands that read feeds.yaml.
struct ConfigOptions: ParsableArguments {
    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The feeds file.",
            discussion: """
                Default: $FEEDAGG_CONFIG, else ./feeds.yaml, else $XDG_CONFIG_HOME/feedagg/feeds.yaml \
                (~/.config/feedagg/feeds.yaml).
                """,
            valueName: "file"),
        completion: .file(extensions: ["yaml", "yml"]))
    var config: String?

    /// The configuration file in effect (throws "no feeds.yaml found" listing where it looked).
    func path() throws -> String { try ConfigDiscovery().require(explicit: config) }

    /// The configuration file in effect, or `nil` when none is found and `store` names a store
    /// explicitly (commands that read the store only).
    func path(orNoneWith store: StoreOptions) throws -> String? {
        if store.given != nil { return ConfigDiscovery().locate(explicit: config) }
        return try path()
    }
}
