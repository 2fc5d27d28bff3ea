public import FeedaggKit
import FeedConfig
import FeedCore
import FeedStorage
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// `feedagg serve`: one process that keeps the feeds of feeds.yaml fresh and serves the merged
/// stream over HTTP (docs/serve.md).
///
/// The HTTP server (Hummingbird) and the pull scheduler run side by side as services of one
/// swift-service-lifecycle `ServiceGroup`, which stops both on SIGTERM or SIGINT.
public struct FeedaggServer: Sendable {
    /// What to serve, where.
    public var settings: ServeSettings
    /// Loads the configuration, opens the store and pulls (its console is the server's log).
    public var aggregator: Aggregator

    /// Creates a server; nothing runs before ``run()``.
    public init(settings: ServeSettings, aggregator: Aggregator = Aggregator()) {
        self.settings = settings
        self.aggregator = aggregator
    }

    /// Checks the settings, loads feeds.yaml, opens (or creates) the store, then serves until
    /// SIGTERM or SIGINT.
    ///
    /// Prints `serving http://HOST:PORT` on standard error once the socket listens (with the
    /// real port when `--listen` asked for port 0).
    ///
    /// - Throws: ``ServeError`` for a refused setting (a non-loopback address without a token
    ///   file…), `ConfigError`/`ConfigErrors` for an invalid feeds.yaml, `StoreError` for a store
    ///   that cannot be opened; nothing is served then.
    public func run() async throws {
        let token = try checkAccess()
        var publicOrigins: [PublicOrigin] = []
        for text in settings.publicURLs { publicOrigins.append(try PublicOrigin(parsing: text)) }
        let (document, feeds) = try aggregator.load(configPath: settings.configPath)
        // The store is settled now: a later edit of feeds.yaml's `store:` (SIGHUP or not) does not move it.
        var settings = self.settings
        settings.store = aggregator.configuredLocation(settings.store, config: settings.configPath)
        let keepRaw = document.settings.keepRaw
        let (store, _) = try aggregator.openStore(settings.store, config: settings.configPath, keepRaw: keepRaw)
        if settings.verbose { aggregator.announceStore(store) }
        // This store serves every read until the server stops: one handle per process (SQLite: a
        // GRDB DatabasePool, readers beside the pulls' writer in WAL mode; PostgreSQL: its pool).
        // PostgreSQL pulls use it too; SQLite pulls open the file themselves (cheap).
        defer { try? store.close() }
        var lentStore: (store: any StoreDriver, keepRaw: Bool)?
        if case .postgres = settings.store { lentStore = (store, keepRaw) }
        if case .standard = settings.store {
            // Opened (and its folder created) above: from now on it is this file, whatever feeds.yaml says later.
            settings.store = .file(try settings.store.resolve(environment: aggregator.environment, config: settings.configPath).path)
        }
        let configuration = ConfigurationBox(ServedConfiguration(document: document, feeds: feeds))
        let readPool = StoreReadPool(threads: Self.readThreads)
        do {
            try await serve(
                settings: settings, token: token, publicOrigins: publicOrigins, configuration: configuration,
                document: document, store: store, lentStore: lentStore, readPool: readPool)
        } catch {
            await readPool.shutdown()
            throw error
        }
        await readPool.shutdown()
    }

    /// Serves until SIGTERM or SIGINT: the HTTP server and the scheduler, reading through `store`
    /// on `readPool`.
    private func serve(
        settings: ServeSettings, token: AuthToken?, publicOrigins: [PublicOrigin], configuration: ConfigurationBox,
        document: FeedsDocument, store: any StoreDriver, lentStore: (store: any StoreDriver, keepRaw: Bool)?,
        readPool: StoreReadPool
    ) async throws {
        // PostgreSQL announces its changes (a SQLite read of the number costs microseconds).
        let watch = lentStore == nil ? nil : ChangeNumberWatch()
        let reader = StreamReader(
            aggregator: aggregator, settings: settings, configuration: configuration, lentStore: store, readPool: readPool,
            watch: watch)
        // SIGHUP is trapped from here on (before the server runs, so an early one is not fatal).
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let readiness = ServerReadiness()
        let scheduler = PullScheduler(
            aggregator: aggregator, settings: settings, configuration: configuration, hangups: hangups,
            readiness: readiness, shared: try sharedSchedule(settings: settings, document: document), lentStore: lentStore,
            wrote: { watch?.wrote() })
        let metrics = ServerMetrics.registry
        let hosts = ServedHosts(listen: settings.listen, publicURLs: publicOrigins)
        let router = Router(context: ServeRequestContext.self)
        // Refusals first, cheapest first: a foreign Host, then the request budget, then the token,
        // then a state change from another site; only then the routes and what wraps their answers.
        router.add(middleware: HostCheckMiddleware(hosts: hosts))
        router.add(
            middleware: AdmissionMiddleware(
                gate: AdmissionGate(limit: settings.maxConcurrentRequests, queueLimit: settings.maxConcurrentRequests * 4)))
        if let token {
            router.add(middleware: BearerAuthMiddleware(token: token, failures: AuthFailureLimiter(), console: aggregator.console))
        }
        router.add(middleware: SameOriginMiddleware(hosts: hosts, tokenRequired: token != nil))
        router.add(middleware: ContentSecurityMiddleware(contentSecurityPolicy: Self.contentSecurityPolicy))
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: EntityTagMiddleware())
        StreamRoutes(
            reader: reader, hosts: hosts, sourceTypes: aggregator.registry.descriptors.map(\.typeName), scheduler: scheduler
        ).register(on: router)
        RefreshRoutes(scheduler: scheduler, configuration: configuration, metrics: metrics, reader: reader)
            .register(on: router)

        var logger = Logger(label: "feedagg.serve") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = settings.verbose ? .info : .warning
        let console = aggregator.console
        let host = settings.listen.host
        let application = Application(
            router: router,
            server: .http1(
                configuration: HTTP1Channel.Configuration(
                    idleTimeout: .seconds(Int64(Self.idleTimeout.components.seconds)),
                    httpDecoderConfiguration: Self.decoderLimits)),
            configuration: ApplicationConfiguration(
                address: .hostname(settings.listen.host, port: settings.listen.port), serverName: nil,
                backlog: 1024),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                hosts.bound(to: port)
                console.error("serving http://" + ListenAddress.authority(host: host, port: port))
                readiness.markReady()
            },
            logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: application), .init(service: scheduler)]
        if let watch {
            services.append(
                .init(
                    service: ChangeNumberWatchService(watch: watch, store: store), successTerminationBehavior: .ignore,
                    failureTerminationBehavior: .ignore))
        }
        var group = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // Running pulls stop at their next request and save; the server finishes the requests in
        // flight. Anything still running after this is cancelled, well within systemd's 10 s.
        group.maximumGracefulShutdownDuration = Self.shutdownGrace
        group.maximumCancellationDuration = Self.cancellationGrace
        do {
            try await ServiceGroup(configuration: group).run()
        } catch where !readiness.isReady {
            // The only failure before the server listens: the address (in use, not local, no permission).
            throw ServeError("cannot listen on \(settings.listen): \(error)")
        } catch where readiness.isStopping {
            // Asked to stop, and something outlived the grace period: what ran was cancelled (its
            // fetched pages are saved). Still a clean stop.
            console.error("feedagg serve: stopped after cancelling what outlived the \(Self.shutdownGrace) grace period")
        }
    }

    /// The schedule shared with the other workers on the same PostgreSQL store
    /// (docs/worker-coordination.md); `nil` for a SQLite store (this process schedules alone).
    func sharedSchedule(settings: ServeSettings, document: FeedsDocument) throws -> (any SharedSchedule)? {
        #if PostgreSQL
            guard case .postgres(let text) = settings.store else { return nil }
            let url = try PostgresURL(text, environment: aggregator.environment)
            return try PostgresSharedSchedule(
                url: url, leaseTimeout: .seconds(document.settings.leaseTimeout * settings.intervalScale),
                maxConnectionsPerHost: document.settings.maxConnectionsPerHost)
        #else
            return nil
        #endif
    }

    /// The token every request needs, or `nil` on a loopback address without `--auth-token-file`.
    /// A non-loopback address without a token file is refused.
    func checkAccess() throws(ServeError) -> AuthToken? {
        if let file = settings.authTokenFile { return try AuthToken(file: file) }
        guard settings.listen.isLoopback else {
            throw ServeError(
                "--listen \(settings.listen) is reachable from other machines: give --auth-token-file FILE "
                    + "(a file only you can read, holding the token clients send as Authorization: Bearer TOKEN), "
                    + "or listen on 127.0.0.1")
        }
        return nil
    }

    /// The threads store reads run on (``StoreReadPool``).
    static let readThreads = 4

    /// How long a connection may stay idle (no request being read or answered) before it is closed.
    static let idleTimeout = Duration.seconds(30)

    /// The HTTP decoder's limits: a header field of at most 8 KiB, 32 KiB of headers in all, 100
    /// fields (larger requests are refused before any route runs).
    static let decoderLimits = HTTP1Channel.Configuration.DecoderConfiguration(
        maxHeaderFieldSize: 8 * 1024, maxHeaderListSize: 32 * 1024, maxHeaderFieldCount: 100)

    /// How long a graceful shutdown may take before what still runs is cancelled.
    static let shutdownGrace = Duration.seconds(7)
    /// How long cancelled services may take to end before the run gives up on them (the process
    /// then exits anyway): 7 + 2 s, within systemd's 10 s before SIGKILL.
    static let cancellationGrace = Duration.seconds(2)

    /// Scripts only from the server itself (none inline, none from items), images from anywhere
    /// on the web (avatars, photos), everything else from the server only.
    static let contentSecurityPolicy: ContentSecurityPolicy = [
        .defaultSrc(.self), .scriptSrc(.self), .styleSrc(.self), .imgSrc(.self, .scheme(.http), .scheme(.https)), .connectSrc(.self),
        .objectSrc(.none), .baseURI(.none), .formAction(.self), .frameAncestors(.none),
    ]
}
