import FeedConfig
import FeedStore
import FeedStorage
import Foundation

#if PostgreSQL
    import PostgresFeedStore
#endif

extension Aggregator {
    /// Opens the PostgreSQL store `text` names (`${VAR}` and `PGPASSWORD` from the environment);
    /// every error names the URL with its password redacted. A `store_password_file` of feeds.yaml
    /// reaches here inside `text` (see ``configuredLocation(_:config:loaded:)``).
    ///
    /// A feedagg built without the PostgreSQL trait (`swift build --disable-default-traits`) throws
    /// ``StoreError/Kind/cannotOpen`` saying so.
    func openPostgres(_ text: String, keepRaw: Bool = true) throws -> any StoreDriver {
        let url = try PostgresURL(text, environment: environment)
        #if PostgreSQL
            return try PostgresFeedStore.open(url: url, now: StoreClock.now(environment: environment), keepRaw: keepRaw)
        #else
            throw StoreError(
                kind: .cannotOpen, path: url.redacted, operation: "open the store",
                detail: "this feedagg was built without PostgreSQL (the PostgreSQL trait); build it with `swift build` (the default traits)")
        #endif
    }

    /// The store a command uses for the configuration `config`, given `location` (from `--db` and
    /// `FEEDAGG_DB`, which win):
    /// - the standard location becomes the `store:` setting of feeds.yaml when it gives one;
    /// - a PostgreSQL URL without a password gets the `store_password_file` one of feeds.yaml, when
    ///   it gives one (it is only ever shown redacted).
    ///
    /// Resolve once per command, when the configuration is loaded (`feedagg serve` does so at start,
    /// so an edit of feeds.yaml never moves a running server to another store). A feeds.yaml that
    /// cannot be read leaves `location` as it is (the command's own load says why).
    ///
    /// - Parameter loaded: The `store` and `store_password_file` settings when the caller has loaded
    ///   feeds.yaml already (`pull` has); otherwise the file is read here, only when they are needed.
    public func configuredLocation(
        _ location: StoreLocation, config: String?, loaded: (store: String?, password: String?)? = nil
    ) -> StoreLocation {
        guard case .standard = location else {
            guard case .postgres(let text) = location, PostgresURL.lacksPassword(text),
                let password = (loaded ?? storeSettings(config: config)).password
            else {
                return location
            }
            return .postgres(PostgresURL.withPassword(password, in: text))
        }
        let settings = loaded ?? storeSettings(config: config)
        guard let store = settings.store else { return location }
        guard case .postgres(let text) = StoreLocation.parse(store), let password = settings.password else {
            return .parse(store)
        }
        return .postgres(PostgresURL.withPassword(password, in: text))
    }

    /// The `store` and `store_password_file` settings of feeds.yaml at `config`; none when there is
    /// no such file or its settings do not load.
    func storeSettings(config: String?) -> (store: String?, password: String?) {
        guard let config, FileManager.default.fileExists(atPath: config),
            let (document, _) = try? FeedsLoader.loadCollectingErrors(
                path: config, sources: registry.descriptors, environment: environment)
        else { return (nil, nil) }
        return (document.settings.store, document.settings.storePassword)
    }
}
