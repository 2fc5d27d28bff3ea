public import FeedCore
public import Foundation

/// Finds the feeds.yaml a command reads: `--config`, else `$FEEDAGG_CONFIG`, else `./feeds.yaml`,
/// else `$XDG_CONFIG_HOME/feedagg/feeds.yaml` (`~/.config/feedagg/feeds.yaml` when
/// `XDG_CONFIG_HOME` is unset or relative).
public struct ConfigDiscovery: Sendable {
    /// The variable naming a configuration file when `--config` is not given.
    public static let variable = "FEEDAGG_CONFIG"
    /// The file looked for in the working directory.
    public static let fileName = "feeds.yaml"

    /// The process environment.
    public var environment: [String: String]
    /// Whether a file exists (injected for tests).
    var exists: @Sendable (String) -> Bool

    /// Creates a discovery over `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        self.exists = { FileManager.default.fileExists(atPath: $0) }
    }

    /// The per-user configuration file: `$XDG_CONFIG_HOME/feedagg/feeds.yaml`, else
    /// `$HOME/.config/feedagg/feeds.yaml` (`nil` when neither variable says where).
    public var userConfigPath: String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config).appendingPathComponent("feedagg/feeds.yaml").path
        }
        if let home = environment["HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home).appendingPathComponent(".config/feedagg/feeds.yaml").path
        }
        return nil
    }

    /// The configuration file to read: `explicit` (`--config`) or `$FEEDAGG_CONFIG` as given (a
    /// missing file is then the loader's "cannot read" error), else the first existing of
    /// `./feeds.yaml` and ``userConfigPath``; `nil` when none exists.
    public func locate(explicit: String?) -> String? {
        if let explicit { return explicit }
        if let named = environment[Self.variable], !named.isEmpty { return named }
        if exists(Self.fileName) { return Self.fileName }
        if let user = userConfigPath, exists(user) { return user }
        return nil
    }

    /// Like ``locate(explicit:)``, but a missing configuration is a ``ConfigError`` saying every
    /// place looked at and suggesting `feedagg init`.
    public func require(explicit: String?) throws -> String {
        if let path = locate(explicit: explicit) { return path }
        throw notFound
    }

    /// "no feeds.yaml found", with every place looked at.
    public var notFound: ConfigError {
        var places = [
            "--config (not given)", "$\(Self.variable) (not set)",
            "./\(Self.fileName) (in \(FileManager.default.currentDirectoryPath))",
        ]
        if let user = userConfigPath {
            let origin = environment["XDG_CONFIG_HOME"].map { $0.hasPrefix("/") } == true ? "$XDG_CONFIG_HOME" : "$HOME/.config"
            places.append("\(user) (\(origin))")
        } else {
            places.append("$XDG_CONFIG_HOME/feedagg/feeds.yaml (neither XDG_CONFIG_HOME nor HOME is set)")
        }
        return ConfigError(
            "no feeds.yaml found", at: nil,
            notes: ["looked at, in order:"] + places.map { "  \($0)" }
                + ["help: create a starter file with `feedagg init`, or name one with --config FILE"])
    }
}
