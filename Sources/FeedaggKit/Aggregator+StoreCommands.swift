public import FeedConfig
public import FeedCore
import FeedStore
public import FeedStorage
import FeedSearch
import ExecSource
import Foundation

extension Aggregator {
    /// The declared feeds (name, source type) in declaration order, without building sources (so a
    /// feed whose token variable is unset can still be read offline).
    public func declaredFeeds(configPath: String) throws -> [(name: String, source: String)] {
        let document = try FeedsLoader.load(path: configPath, sources: registry.descriptors, environment: environment)
        return document.feeds.map { ($0.name, $0.sourceType) }
    }

    /// Opens an existing store for reading commands; a missing file is a clear error, not a new store.
    func openExistingStore(_ location: StoreLocation, config: String?) throws -> any StoreDriver {
        let location = configuredLocation(location, config: config)
        if case .postgres(let text) = location { return try openPostgres(text) }
        let (path, _) = try location.resolve(environment: environment, config: config)
        guard FileManager.default.fileExists(atPath: path) else {
            if location == .standard { noteLegacyStore(newPath: path) }
            throw StoreError(
                kind: .cannotOpen, path: path, operation: "open",
                detail: "no store there yet: run `feedagg pull` first (or pass the store of an earlier pull with --db)")
        }
        return try FeedStore.open(path: path)
    }

    /// Says on standard error where the single store of earlier feedagg versions is, when it exists
    /// and this configuration's own store does not yet: nothing stored earlier is silently lost.
    func noteLegacyStore(newPath: String) {
        guard !FileManager.default.fileExists(atPath: newPath),
            let legacy = try? FeedStore.defaultPath(environment: environment),
            FileManager.default.fileExists(atPath: legacy)
        else { return }
        console.error(
            "note: feedagg now keeps one store per feeds.yaml (this one: \(newPath)); the store shared by "
                + "every configuration before is \(legacy): read it with `--db \(legacy)`")
    }

    /// `feedagg show`: a page of the unified stream from the store, with no network at all: the
    /// entries ``ShowSettings/query`` and ``ShowSettings/view`` select, as the configuration's
    /// filter rules leave the stream (``StreamSelection``).
    ///
    /// - Parameter listed: called once, before the page is read, with the feeds the listing covers
    ///   in stream order (the declared or stored feeds narrowed to ``ShowSettings/feeds``): what an
    ///   Atom or JSON Feed document is named after.
    public func show(_ settings: ShowSettings, listed: ([String]) throws -> Void = { _ in }) throws -> StoredStreamPage {
        let listing = try openListing(settings)
        defer { if settings.lentStore == nil { try? listing.store.close() } }
        try listed(listing.feeds)
        if let cursor = listing.cursor {
            return try listing.store.stream(
                feeds: listing.feeds, sources: listing.sources, selection: listing.selection, after: cursor,
                limit: settings.perPage)
        }
        return try listing.store.stream(
            feeds: listing.feeds, sources: listing.sources, selection: listing.selection, page: settings.page,
            perPage: settings.perPage)
    }

    /// ``show(_:listed:)`` for an async caller with a store lent (``ShowSettings/lentStore``), read
    /// without blocking a thread when the store can
    /// (``StoreDriver/awaitStreamPage(feeds:sources:selection:after:limit:onCallersPool:)``, which
    /// says what `onCallersPool` allows);
    /// `nil` at once, without listing, when the store awaits no page (SQLite); `nil` when it cannot
    /// read this one, when the settings ask for another page than the one after a cursor or
    /// page 1, or when the listing would read a file or the store first (no configuration held):
    /// the caller then calls ``show(_:listed:)`` on a thread of its own.
    public func awaitShow(_ settings: ShowSettings, onCallersPool: Bool = false) async throws -> StoredStreamPage? {
        guard settings.lentStore?.awaitsStreamPages == true, settings.after != nil || settings.page <= 1,
            settings.configPath != nil,
            settings.document != nil || settings.declaredFeeds != nil
        else { return nil }
        let listing = try openListing(settings)
        return try await listing.store.awaitStreamPage(
            feeds: listing.feeds, sources: listing.sources, selection: listing.selection, after: listing.cursor,
            limit: settings.perPage, onCallersPool: onCallersPool)
    }

    /// `feedagg show --all`: every entry of the listing (after ``ShowSettings/after`` when set),
    /// handed to `body` one page of ``ShowSettings/perPage`` entries at a time, read with the
    /// cursor, so memory holds one page whatever the store's size. `body` is called at least once
    /// (with an empty page when there is nothing to show); `listed` as for ``show(_:listed:)``.
    public func showAll(
        _ settings: ShowSettings, listed: ([String]) throws -> Void = { _ in }, _ body: (StoredStreamPage) throws -> Void
    ) throws {
        let listing = try openListing(settings)
        defer { if settings.lentStore == nil { try? listing.store.close() } }
        try listed(listing.feeds)
        var cursor = listing.cursor
        while true {
            let page = try listing.store.stream(
                feeds: listing.feeds, sources: listing.sources, selection: listing.selection, after: cursor,
                limit: settings.perPage)
            try body(page)
            guard let next = page.nextCursor, !page.entries.isEmpty else { return }
            cursor = try StreamCursor(next)
        }
    }

    /// A store opened for a read of the stream, with what the read lists.
    struct Listing {
        var store: any StoreDriver
        /// The feeds, in stream order.
        var feeds: [String]
        /// The source types, `nil` for all.
        var sources: [String]?
        var cursor: StreamCursor?
        /// The search and the filter rules.
        var selection: StreamSelection
        /// The configuration, when there is one.
        var document: FeedsDocument?
    }

    /// Checks `settings` against feeds.yaml and opens the store: the feeds and sources to list,
    /// and what is selected from them (the query, the view's, the filter rules).
    func openListing(_ settings: ShowSettings) throws -> Listing {
        let cursor = try settings.after.map(StreamCursor.init)
        let types = registry.descriptors.map(\.typeName)
        for source in settings.sources where !types.contains(source) {
            throw ConfigError(
                "unknown source type '\(source)'", at: nil,
                notes: (Suggestion.closest(to: source, in: types).map { ["did you mean '\($0)'?"] } ?? [])
                    + ["source types: \(types.joined(separator: ", "))"])
        }
        let names: [String]
        let store: any StoreDriver
        var document: FeedsDocument?
        if let configPath = settings.configPath {
            if let held = settings.document {
                document = held
                names = held.feeds.map(\.name)
            } else if let declared = settings.declaredFeeds {
                names = declared
            } else {
                let loaded = try FeedsLoader.load(path: configPath, sources: registry.descriptors, environment: environment)
                document = loaded
                names = loaded.feeds.map(\.name)
            }
            try checkFeedNames(settings.feeds, in: names, origin: configPath)
            store = try settings.lentStore ?? openExistingStore(settings.store, config: configPath)
        } else {
            store = try settings.lentStore ?? openExistingStore(settings.store, config: nil)
            do {
                names = try store.feedNames()
                try checkFeedNames(settings.feeds, in: names, origin: store.location)
            } catch {
                if settings.lentStore == nil { try? store.close() }
                throw error
            }
        }
        var query = settings.query
        if let view = settings.view {
            do {
                query = .both(try Self.savedView(view, in: document, configPath: settings.configPath).query, query)
            } catch {
                if settings.lentStore == nil { try? store.close() }
                throw error
            }
        }
        let rules = settings.appliesRules ? document?.filters ?? .none : .none
        let feeds = settings.feeds.isEmpty ? names : names.filter(settings.feeds.contains)
        return Listing(
            store: store, feeds: feeds, sources: settings.sources.isEmpty ? nil : settings.sources, cursor: cursor,
            selection: StreamSelection(query: query, rules: rules, now: settings.now), document: document)
    }

    /// The view `name` of `document`, or a did-you-mean ``ConfigError``.
    static func savedView(_ name: String, in document: FeedsDocument?, configPath: String?) throws -> SavedView {
        guard let document else {
            throw ConfigError(
                "no view named '\(name)': views are declared in feeds.yaml, and this read has none", at: nil,
                notes: ["help: pass the configuration that declares it with --config"])
        }
        if let view = document.view(named: name) { return view }
        let names = document.views.map(\.name)
        let origin = configPath ?? "feeds.yaml"
        guard !names.isEmpty else {
            throw ConfigError(
                "no view named '\(name)': \(origin) declares no views", at: nil,
                notes: ["help: add one: views: [{name: \(name), query: \"swift -beta\"}] (docs/query.md)"])
        }
        throw ConfigError(
            "no view named '\(name)' in \(origin)", at: nil,
            notes: Suggestion.didYouMean(name, in: names) + ["views: \(names.joined(separator: ", "))"])
    }

    /// Throws a did-you-mean ``ConfigError`` for the first of `requested` not in `names`.
    func checkFeedNames(_ requested: [String], in names: [String], origin: String) throws {
        for name in requested where !names.contains(name) {
            throw ConfigError(
                "no feed named '\(name)' in \(origin)", at: nil,
                notes: (Suggestion.closest(to: name, in: names).map { ["did you mean '\($0)'?"] } ?? [])
                    + ["\(origin.hasSuffix(".sqlite") ? "stored" : "declared") feeds: \(names.joined(separator: ", "))"])
        }
    }

    /// `feedagg feeds`: every declared feed with what the store holds, then the stored feeds it
    /// does not declare, each with its ``FeedStatus/Standing``. Without a configuration (`nil`,
    /// `--db` only): every stored feed, by name. A PostgreSQL store is announced on the console
    /// (``announceStore(_:)``).
    public func feedStatuses(configPath: String?, store location: StoreLocation) throws -> [FeedStatus] {
        let declared = try configPath.map {
            try FeedsLoader.load(path: $0, sources: registry.descriptors, environment: environment).feeds
        } ?? []
        if case .postgres(let text) = configuredLocation(location, config: configPath) {
            // Opened here to say how it is reached (TLS, verified) before the list.
            let store = try openPostgres(text)
            defer { try? store.close() }
            announceStore(store)
            return try feedStatuses(declared: declared, configPath: configPath, store: location, lent: store)
        }
        return try feedStatuses(declared: declared, configPath: configPath, store: location)
    }

    /// ``feedStatuses(configPath:store:)`` for feeds the caller loaded already (`feedagg serve`
    /// keeps the configuration it loaded until SIGHUP): `declared` are the configuration's feeds,
    /// `configPath` only locates the standard store and names the feeds' owner. `lent`: an open
    /// store to read instead of opening `location` (see ``ShowSettings/lentStore``); left open.
    public func feedStatuses(
        declared: [FeedDeclaration], configPath: String?, store location: StoreLocation, lent: (any StoreDriver)? = nil
    ) throws -> [FeedStatus] {
        let location = configuredLocation(location, config: configPath)
        let (path, _) = try location.resolve(environment: environment, config: configPath)
        var stored: [String: FeedSummary] = [:]
        var order: [String] = []
        let store: (any StoreDriver)?
        if let lent {
            store = lent
        } else if case .postgres(let text) = location {
            store = try openPostgres(text)
        } else if FileManager.default.fileExists(atPath: path) {
            store = try FeedStore.open(path: path)
        } else {
            store = nil
            if location == .standard { noteLegacyStore(newPath: path) }
        }
        if let store {
            defer { if lent == nil { try? store.close() } }
            for summary in try store.feedSummaries() { stored[summary.name] = summary }
            order = try store.feedNames()
        }
        guard let configPath else {
            return Self.withPluginStderr(
                order.compactMap { name in
                    stored[name].map {
                        FeedStatus(name: name, source: $0.source, declared: false, stored: $0, standing: .stored)
                    }
                }, storePath: path)
        }
        let owner = FeedStore.canonicalConfigPath(configPath)
        var statuses = declared.map {
            FeedStatus(
                name: $0.name, source: $0.sourceType, declared: true, stored: stored[$0.name],
                credential: $0.credential?.description)
        }
        let names = Set(declared.map(\.name))
        for summary in stored.values.sorted(by: { $0.name < $1.name }) where !names.contains(summary.name) {
            let standing: FeedStatus.Standing =
                switch summary.config {
                case nil: .ownerUnknown
                case owner?: .removed
                case let other?: .otherConfig(other)
                }
            statuses.append(
                FeedStatus(name: summary.name, source: summary.source, declared: false, stored: summary, standing: standing))
        }
        return Self.withPluginStderr(statuses, storePath: path)
    }

    /// `statuses` with the kept plugin stderr of each exec feed whose last pull failed.
    static func withPluginStderr(_ statuses: [FeedStatus], storePath: String) -> [FeedStatus] {
        let log = PluginStderrLog(storePath: storePath)
        return statuses.map { status in
            guard status.source == "exec", status.stored?.lastError != nil else { return status }
            var status = status
            status.pluginStderr = log.read(feed: status.name)
            return status
        }
    }
}

extension StoredStreamPage {
    /// The page in the shape ``StreamRenderer`` prints (cursor access has no page number: 0).
    public var streamPage: StreamPage {
        StreamPage(page: page ?? 0, perPage: perPage, totalItems: totalItems, totalPages: totalPages, entries: entries)
    }

    /// Rendered in `format`; JSON carries `next_cursor`. A table's footer says where the page is
    /// (`page 2/124 · …`, or `after cursor · …` for cursor access) and, when more follows, the
    /// next command: `next: feedagg show --after CURSOR …` built from `next` (the options that
    /// reproduce this listing), so it works as printed; no next command when `next` is `nil`
    /// (the store is gone). Atom and JSON Feed documents are named by `identity` and carry the
    /// cursor in feedagg's extension (see ``AtomRenderer``, ``JSONFeedRenderer``).
    public func rendered(
        _ format: OutputFormat, style: TableStyle = TableStyle(terminalWidth: 120), next: ShowCommandLine? = ShowCommandLine(),
        identity: FeedIdentity = FeedIdentity(feeds: [])
    ) -> RenderedOutput {
        var output = StreamRenderer.render(
            streamPage, format: format, style: style, extra: [("next_cursor", .optionalString(nextCursor))],
            identity: identity, nextCursor: nextCursor)
        guard format == .table else { return output }
        if page == nil {
            // Cursor access: no page number to speak of.
            if entries.isEmpty {
                let message = "(nothing after the cursor: \(Plural.of(totalItems, "item")) in all)"
                if style.isTerminal { output.body = message + "\n" } else { output.footer = [message] }
            } else {
                output.footer = [
                    "after cursor · \(Plural.of(entries.count, "item")) shown · \(Plural.of(totalItems, "item")) in all"
                        + " · \(perPage) per page"
                ]
            }
        }
        if let nextCursor, let next, !entries.isEmpty { output.footer.append("next: " + next.command(after: nextCursor)) }
        return output
    }
}
