import FeedStore
import FeedStorage
public import Foundation
import StableHash

/// Where a command keeps its store.
public enum StoreLocation: Sendable, Equatable {
    /// The configuration's own store (``FeedStore/defaultPath(forConfig:environment:)``):
    /// `$XDG_DATA_HOME/feedagg/stores/<stem>-<hash>.sqlite`, else under `~/.local/share`.
    case standard
    /// This file (`--db FILE`).
    case file(String)
    /// A fresh store in a temporary directory, removed after the command (replays and recordings
    /// without `--db`, so they neither read nor touch the user's store).
    case temporary
    /// The store kept for replays of `replayDirectory` with `configPath`:
    /// `$XDG_CACHE_HOME/feedagg/replay-HASH.sqlite` (else `~/.cache/feedagg/…`; a temporary store
    /// when neither is set), so `feedagg show --db …` can page what a `pull --replay` stored.
    case replayCache(replayDirectory: String, configPath: String)
    /// A PostgreSQL database (`--db postgres://user@host:port/db`, `postgresql://…`, or the socket form
    /// `postgres://user@/db?host=/socketdir`): the URL as given, `${VAR}` and password included; it is
    /// only ever shown redacted (``PostgresURL/redacted``).
    case postgres(String)

    /// The location `--db VALUE` names: a PostgreSQL URL, or a file path.
    public static func parse(_ value: String) -> StoreLocation {
        PostgresURL.isPostgres(value) ? .postgres(value) : .file(value)
    }

    /// The path for `environment` and the configuration file `config` (which names the standard
    /// store), creating the temporary directory if needed. For PostgreSQL: the URL with its password
    /// redacted (what messages show).
    public func resolve(environment: [String: String], config: String?) throws -> (path: String, temporaryDirectory: URL?) {
        switch self {
        case .standard:
            guard let config else { throw ConfigDiscovery(environment: environment).notFound }
            return (try FeedStore.defaultPath(forConfig: config, environment: environment), nil)
        case .file(let path):
            return (path, nil)
        case .postgres(let url):
            return (PostgresURL.redact(url), nil)
        case .replayCache(let replay, let configPath):
            guard let cache = Self.cacheDirectory(environment: environment) else {
                return try StoreLocation.temporary.resolve(environment: environment, config: config)
            }
            let key = [replay, configPath].map { URL(fileURLWithPath: $0).standardizedFileURL.path }
                .joined(separator: "\n")
            return (cache.appendingPathComponent("feedagg/replay-\(FNV1a.hex(key)).sqlite").path, nil)
        case .temporary:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "feedagg-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
            return (directory.appendingPathComponent("feedagg.sqlite").path, directory)
        }
    }
}

extension StoreLocation {
    /// `$XDG_CACHE_HOME` (absolute), else `$HOME/.cache`, else `nil`.
    static func cacheDirectory(environment: [String: String]) -> URL? {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return URL(fileURLWithPath: cache) }
        if let home = environment["HOME"], !home.isEmpty { return URL(fileURLWithPath: home).appendingPathComponent(".cache") }
        return nil
    }
}
