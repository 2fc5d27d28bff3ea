public import FeedCore
public import FeedConfig
public import Foundation
public import FeedStore
import CurlHTTP
import Synchronization
import FeedReplay

/// The application: loads feeds.yaml, builds feeds from the registry, pulls into the store, reads
/// the unified stream back.
public struct Aggregator: Sendable {
    /// The source types feeds.yaml may name (``SourceRegistry/builtIn`` unless a test adds its own).
    public var registry: SourceRegistry
    /// Where warnings, per-feed summaries and the progress line go (standard error by default).
    public var console: Console
    /// The process environment (for `${VAR}` interpolation and the store's default location).
    public var environment: [String: String]

    /// Creates an aggregator.
    public init(
        registry: SourceRegistry = .builtIn, console: Console = Console(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.registry = registry
        self.console = console
        self.environment = environment
    }

    /// Loads and validates feeds.yaml, and builds every feed.
    ///
    /// Every error of the file is reported, the loader's and the sources' together: throws one
    /// ``ConfigError``, or ``ConfigErrors`` when there are several.
    public func load(configPath: String, baseURLOverride: URL? = nil) throws -> (FeedsDocument, [Feed]) {
        let (document, errors) = try FeedsLoader.loadCollectingErrors(
            path: configPath, sources: registry.descriptors, environment: environment)
        // `redact_params:` hold for every URL this process shows from now on.
        Redaction.addShownSecretParameters(document.settings.redactParams)
        let (feeds, feedErrors) = buildFeeds(of: document, baseURLOverride: baseURLOverride)
        try ConfigErrors.throwIfAny(errors + feedErrors)
        return (document, feeds)
    }

    /// Builds every feed `document` declares, sent to `baseURLOverride` when given (throws
    /// ``ConfigError`` or ``ConfigErrors``).
    public func feeds(of document: FeedsDocument, baseURLOverride: URL? = nil) throws -> [Feed] {
        let (feeds, errors) = buildFeeds(of: document, baseURLOverride: baseURLOverride)
        try ConfigErrors.throwIfAny(errors)
        return feeds
    }

    /// Opens the store at `location` for the configuration `config`, creating it if needed (throws
    /// ``StoreError``); returns it and the temporary directory to remove afterwards, if any.
    ///
    /// Only the standard location's directory is created: a `--db` into a missing directory is an
    /// error naming it (a typo should not scatter stores).
    ///
    /// - Parameter keepRaw: Whether commits store the items' original JSON (the `keep_raw` setting).
    /// - Parameter loaded: The store settings of feeds.yaml when the caller has loaded it already
    ///   (see ``configuredLocation(_:config:loaded:)``).
    public func openStore(
        _ location: StoreLocation, config: String?, keepRaw: Bool = true, loaded: StoreSettings? = nil
    ) throws -> (any StoreDriver, URL?) {
        let location = configuredLocation(location, config: config, loaded: loaded)
        if case .postgres(let text) = location {
            return (try openPostgres(text, keepRaw: keepRaw), nil)
        }
        let (path, temporary) = try location.resolve(environment: environment, config: config)
        if case .file = location {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue {
                throw StoreError(
                    kind: .cannotOpen, path: path, operation: "open",
                    detail: "the directory \(directory) does not exist (create it first: only the default store's directory is created for you)")
            }
        }
        if location == .standard { noteLegacyStore(newPath: path) }
        do {
            return (
                try FeedStore.open(path: path, now: StoreClock.now(environment: environment), keepRaw: keepRaw), temporary
            )
        } catch {
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
            throw error
        }
    }

    /// Runs a pull: configuration, store, transport (libcurl, or a replay server), engine, one
    /// commit per feed as it finishes, then the requested page of the unified stream.
    ///
    /// The phases are ``PullSetup`` (client, cache, request log and progress, engine),
    /// ``pullFeeds(_:setup:store:settings:restart:)`` (the feeds, each committed as it finishes)
    /// and ``makeReport(_:declared:rules:store:settings:)`` (the page read back from the store).
    public func pull(_ settings: PullSettings) async throws -> PullReport {
        // Configuration errors come first: nothing is opened or fetched for a bad feeds.yaml.
        let (document, declaredFeeds) = try load(configPath: settings.configPath)
        return try await pull(settings, document: document, declaredFeeds: declaredFeeds)
    }

    /// ``pull(_:)`` with the configuration loaded already (`feedagg serve` pulls with the
    /// configuration it loaded until SIGHUP, whatever the file holds meanwhile): `document` and
    /// `declaredFeeds` as ``load(configPath:baseURLOverride:)`` returned them for
    /// ``PullSettings/configPath``.
    public func pull(_ settings: PullSettings, document: FeedsDocument, declaredFeeds: [Feed]) async throws -> PullReport {
        try checkFeedNames(settings.onlyFeeds, in: declaredFeeds.map(\.name), origin: settings.configPath)
        let (store, temporary) =
            try settings.lentStore.map { ($0, nil) }
            ?? openStore(
                settings.effectiveStore, config: settings.configPath, keepRaw: document.settings.keepRaw,
                loaded: (document.settings.store, document.settings.storePassword, document.settings.storeTLS))
        if settings.verbose && settings.lentStore == nil { announceStore(store) }
        defer {
            if settings.lentStore == nil { try? store.close() }
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
        }
        var replay: ReplayServer?
        if let directory = settings.replayDirectory {
            replay = try await ReplayServer.start(directory: directory)
        }
        do {
            var report = try await runPull(
                settings, document: document, declaredFeeds: declaredFeeds, store: store, replay: replay)
            report.storeRemoved = temporary != nil
            try await replay?.shutdown()
            return report
        } catch {
            try? await replay?.shutdown()
            throw error
        }
    }

    /// The pull once the store is open and the replay server (if any) runs: selects the feeds, sets
    /// up the engine, runs the feeds and reads the page back. `declaredFeeds` are built with their
    /// own base URLs (the real origins).
    private func runPull(
        _ settings: PullSettings, document: FeedsDocument, declaredFeeds: [Feed], store: any StoreDriver,
        replay: ReplayServer?
    ) async throws -> PullReport {
        let override = replay?.baseURL ?? settings.baseURLOverride
        var feeds = try override.map { try self.feeds(of: document, baseURLOverride: $0) } ?? declaredFeeds
        let declared = feeds.map(\.name)
        if !settings.onlyFeeds.isEmpty {
            // Every name was checked against the declared feeds before the store was opened.
            feeds = feeds.filter { settings.onlyFeeds.contains($0.name) }
        }
        // Credential warnings (an unset or empty token variable, a token written in the file)
        // always show: a pull without its token fails or is throttled far from the cause. A replay
        // sends nothing to the real origins, so it needs no credential and warns only with --verbose.
        let warnings =
            settings.verbose ? document.warnings : settings.replayDirectory == nil ? document.credentialWarnings : []
        for warning in warnings { console.error(warning) }
        let setup = PullSetup(
            settings, config: document.settings, feeds: feeds, declaredFeeds: declaredFeeds, override: override,
            store: store, replay: replay, console: console, environment: environment)
        defer { setup.client.shutdown() }
        let interruption =
            settings.reportsInterruption ? InterruptWatch(console: console, progress: setup.progress) : nil
        defer { interruption?.stop() }
        if let limit = settings.limit {
            return try await pullNewest(
                limit, feeds: feeds, declared: declared, rules: document.filters, engine: setup.engine, store: store,
                settings: settings, progress: setup.progress)
        }
        // Replays and recordings run against stand-in origins: they never continue a stored pull.
        let restart = settings.refresh == .full || replay != nil || settings.recordDirectory != nil
        let outcomes = await pullFeeds(feeds, setup: setup, store: store, settings: settings, restart: restart)
        return try await makeReport(outcomes, declared: declared, rules: document.filters, store: store, settings: settings)
    }
}
