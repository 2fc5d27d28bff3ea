import FeedaggKit
import FeedConfig
import FeedCore
import FeedStore
import Foundation

/// Reads pages of the stream and the feeds' statuses from the store, for the running
/// configuration: exactly what `feedagg show` and `feedagg feeds` read.
struct StreamReader: Sendable {
    let aggregator: Aggregator
    let settings: ServeSettings
    let configuration: ConfigurationBox
    /// The store `feedagg serve` keeps open for the whole run and every read uses (a GRDB
    /// `DatabasePool` over the SQLite file, or the PostgreSQL pool); `nil`: each read opens the
    /// store (tests that build a reader alone).
    let lentStore: (any StoreDriver)?
    /// The threads reads run on.
    let readPool: StoreReadPool
    /// The pages read awaited (``Aggregator/awaitShow(_:onCallersPool:)``), as many at once as ``readPool`` has
    /// threads.
    private let awaitedReads: AwaitedReadLimit
    /// The change number's reads, shared by the requests waiting at once (``SharedRead``).
    private let changeNumber: SharedRead<Int64?, RequestProblem>
    /// The change number as the store announces it, when it vouches for one; `nil` for a store
    /// that announces nothing (SQLite: its requests go straight to the read).
    let watch: ChangeNumberWatch?

    init(
        aggregator: Aggregator, settings: ServeSettings, configuration: ConfigurationBox, lentStore: (any StoreDriver)?,
        readPool: StoreReadPool, watch: ChangeNumberWatch? = nil
    ) {
        self.aggregator = aggregator
        self.settings = settings
        self.configuration = configuration
        self.lentStore = lentStore
        self.readPool = readPool
        awaitedReads = AwaitedReadLimit(permits: readPool.count)
        self.watch = watch
        changeNumber = SharedRead { () async throws(RequestProblem) -> Int64? in
            guard let store = lentStore else { return nil }
            ServerMetrics.recordChangeNumberRead()
            // On the request's own task: no trip to a store thread (``StoreDriver/awaitChangeVersion()``).
            // Should SQLite be busy past that read's short wait, a store thread reads it the usual
            // way, with the store's own waits.
            do {
                return try await store.awaitChangeVersion()
            } catch let error as StoreError where error.kind == .locked {
            } catch {
                throw Self.problem(error, console: aggregator.console)
            }
            do {
                return try await readPool.run(timeout: Self.readTimeout) { try store.changeVersion() }
            } catch {
                throw Self.problem(error, console: aggregator.console)
            }
        }
    }

    /// The page `query` asks for and the feeds it lists (what a feed document is named after): its
    /// search and view, under the running configuration's filter rules.
    func page(_ query: StreamQuery) async throws(RequestProblem) -> (page: StoredStreamPage, listed: [String]) {
        var show = ShowSettings(configPath: settings.configPath)
        show.store = settings.store
        show.document = configuration.current.document
        show.declaredFeeds = configuration.current.names
        show.query = query.query
        show.view = query.view
        show.feeds = query.feeds
        show.sources = query.sources
        show.perPage = query.limit
        show.after = query.after
        show.page = 1
        show.lentStore = lentStore
        let aggregator = self.aggregator
        let request = show
        // The feeds the listing covers, as `show` narrows them: what a document is named after.
        let names = show.declaredFeeds ?? []
        let listed = query.feeds.isEmpty ? names : names.filter(query.feeds.contains)
        do {
            // Awaited where the store can (PostgreSQL's one-statement pages), else on a store thread;
            // on the cooperative pool, where the request runs (serve holds its threads only briefly).
            // A store that awaits no page (SQLite) goes straight to its thread: no turn to wait for.
            if lentStore?.awaitsStreamPages == true,
                let page = try await awaitedReads.run(
                    timeout: Self.readTimeout, { try await aggregator.awaitShow(request, onCallersPool: true) })
            {
                return (page, listed)
            }
            let page = try await readPool.run(timeout: Self.readTimeout) { try aggregator.show(request) }
            return (page, listed)
        } catch {
            throw problem(error)
        }
    }

    /// The store's change number: as announced, when the store announces its changes and the
    /// watch vouches for it (``ChangeNumberWatch``: another process's commit is seen a moment after
    /// it, this process's at once); otherwise read (``StoreDriver/awaitChangeVersion()``) by a read
    /// that started after this call, shared with the requests asking at the same time. `nil`
    /// without a store kept open (each read opens its own: nothing to key pages by).
    func changeVersion() async throws(RequestProblem) -> Int64? {
        guard let watch else { return try await changeNumber.value() }
        if let announced = watch.current() { return announced }
        let writes = watch.writes
        let number = try await changeNumber.value()
        if let number { watch.read(number, since: writes) }
        return number
    }

    /// `feedagg feeds --format json` for the running configuration, without the configuration
    /// that owns each feed, and with each stored error as it may be served (``PrivateText``: no
    /// path of the machine's, no secret).
    func feedStatuses() async throws(RequestProblem) -> [FeedStatus] {
        let aggregator = self.aggregator
        let settings = self.settings
        let declared = configuration.current.document.feeds
        let lent = lentStore
        let scrubber = privateText()
        do {
            return try await readPool.run(timeout: Self.readTimeout) {
                try aggregator.feedStatuses(
                    declared: declared, configPath: settings.configPath, store: settings.store, lent: lent)
                    .map { status in
                        var status = status
                        status.stored?.config = nil
                        let lastError = status.stored?.lastError
                        status.stored?.lastError = lastError.map(scrubber.scrubbed)
                        status.pluginStderr = nil
                        return status
                    }
            }
        } catch {
            throw problem(error)
        }
    }

    /// The scrubber of text served from the running configuration's pulls.
    func privateText() -> PrivateText {
        let current = configuration.current
        let storePath: String? =
            if case .file(let path) = settings.store { path } else { nil }
        var password = current.document.settings.storePassword
        if case .postgres(let text) = settings.store, let url = URLComponents(string: text), let inURL = url.password {
            password = inURL.removingPercentEncoding ?? inURL
        }
        return PrivateText(
            configuration: current, configPath: settings.configPath, storePath: storePath, storePassword: password)
    }

    /// How long one read of the store may take before the request is answered 503.
    static let readTimeout = Duration.seconds(30)

    /// The problem to answer for `error`: a bad cursor is the client's; the store's details (its
    /// path) go to standard error only.
    func problem(_ error: any Error) -> RequestProblem {
        Self.problem(error, console: aggregator.console)
    }

    private static func problem(_ error: any Error, console: Console) -> RequestProblem {
        if let problem = error as? RequestProblem { return problem }
        if let timeout = error as? StoreReadPool.Timeout {
            console.error("feedagg serve: \(timeout)")
            return RequestProblem(.serviceUnavailable, "\(timeout); try again later")
        }
        if let error = error as? StoreError {
            if error.kind == .invalidCursor { return RequestProblem(.badRequest, "invalid cursor: \(error.detail)") }
            console.error("feedagg serve: \(error)")
            return RequestProblem(.serviceUnavailable, "the store is unavailable (\(error.kind)); see the server's log")
        }
        if let error = error as? ConfigError { return RequestProblem(.badRequest, error.message) }
        console.error("feedagg serve: \(error)")
        return RequestProblem(.internalServerError, "internal error; see the server's log")
    }
}
