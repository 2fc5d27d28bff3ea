import FeedConfig
import FeedStore
public import FeedStorage
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

    /// Prints `store: <URL without password> (<TLS state>)` on the console's standard error for a
    /// PostgreSQL store (`feedagg feeds`, `pull --verbose`, `serve --verbose`): whether its link is
    /// encrypted and what TLS verified (``PostgresLink``). Nothing for SQLite.
    public func announceStore(_ store: any StoreDriver) {
        #if PostgreSQL
            if let store = store as? PostgresFeedStore { console.error("store: \(store.link)") }
        #endif
    }

    /// The store a command uses for the configuration `config`, given `location` (from `--db` and
    /// `FEEDAGG_DB`, which win):
    /// - the standard location becomes the `store:` setting of feeds.yaml when it gives one;
    /// - a PostgreSQL URL without a password gets the `store_password_file` one of feeds.yaml, when
    ///   it gives one (it is only ever shown redacted);
    /// - a PostgreSQL URL gets the `store_tls` parameters of feeds.yaml it does not give itself.
    ///
    /// Resolve once per command, when the configuration is loaded (`feedagg serve` does so at start,
    /// so an edit of feeds.yaml never moves a running server to another store). A feeds.yaml that
    /// cannot be read leaves `location` as it is (the command's own load says why).
    ///
    /// - Parameter loaded: The `store`, `store_password_file` and `store_tls` settings when the
    ///   caller has loaded feeds.yaml already (`pull` has); otherwise the file is read here, only
    ///   when they are needed.
    public func configuredLocation(
        _ location: StoreLocation, config: String?, loaded: StoreSettings? = nil
    ) -> StoreLocation {
        var location = location
        var settings = loaded
        if case .standard = location {
            settings = settings ?? storeSettings(config: config)
            guard let store = settings?.store else { return location }
            location = .parse(store)
        }
        guard case .postgres(var text) = location else { return location }
        // Only a PostgreSQL URL reads the password and TLS settings.
        let resolved = settings ?? storeSettings(config: config)
        if let password = resolved.password, PostgresURL.lacksPassword(text) {
            text = PostgresURL.withPassword(password, in: text)
        }
        return .postgres(PostgresURL.withTLSParameters(resolved.tls, in: text))
    }

    /// The store settings of feeds.yaml: `store`, `store_password_file` (the password) and `store_tls`.
    public typealias StoreSettings = (store: String?, password: String?, tls: [String: String])

    /// The `store`, `store_password_file` and `store_tls` settings of feeds.yaml at `config`; none when there is
    /// no such file or its settings do not load.
    func storeSettings(config: String?) -> StoreSettings {
        guard let config, FileManager.default.fileExists(atPath: config),
            let (document, _) = try? FeedsLoader.loadCollectingErrors(
                path: config, sources: registry.descriptors, environment: environment)
        else { return (nil, nil, [:]) }
        return (document.settings.store, document.settings.storePassword, document.settings.storeTLS)
    }
}
