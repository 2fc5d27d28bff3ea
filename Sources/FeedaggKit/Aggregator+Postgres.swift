import FeedConfig
import FeedStore
import Foundation
import PostgresFeedStore

extension Aggregator {
    /// Opens the PostgreSQL store `text` names (`${VAR}` and `PGPASSWORD` from the environment, or
    /// the `store_password_file` of feeds.yaml at `config` when the URL carries no password); every
    /// error names the URL with its password redacted.
    func openPostgres(_ text: String, config: String?, keepRaw: Bool = true) throws -> any StoreDriver {
        let url = try PostgresURL(text, environment: environment, passwordFile: storeSettings(config: config).password)
        return try PostgresFeedStore.open(url: url, now: StoreClock.now(environment: environment), keepRaw: keepRaw)
    }

    /// `location`; for the standard location, the `store:` setting of feeds.yaml at `config` when it
    /// gives one (`--db` and `FEEDAGG_DB` come first: they are not the standard location).
    public func configuredLocation(_ location: StoreLocation, config: String?) -> StoreLocation {
        guard location == .standard, let store = storeSettings(config: config).store else { return location }
        return .parse(store)
    }

    /// The `store` and `store_password_file` settings of feeds.yaml at `config`; none when there is
    /// no such file or its settings do not load (the command's own load of the file says why).
    func storeSettings(config: String?) -> (store: String?, password: String?) {
        guard let config, FileManager.default.fileExists(atPath: config),
            let (document, _) = try? FeedsLoader.loadCollectingErrors(
                path: config, sources: registry.descriptors, environment: environment)
        else { return (nil, nil) }
        return (document.settings.store, document.settings.storePassword)
    }
}
