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
    /// The store `feedagg serve` keeps open (PostgreSQL) and every read uses; `nil`: each read
    /// opens the store (a SQLite file: cheap).
    var lentStore: (any StoreDriver)?

    /// The page `query` asks for and the feeds it lists (what a feed document is named after).
    func page(_ query: StreamQuery) async throws(RequestProblem) -> (page: StoredStreamPage, listed: [String]) {
        var show = ShowSettings(configPath: settings.configPath)
        show.store = settings.store
        show.declaredFeeds = configuration.current.names
        show.feeds = query.feeds
        show.sources = query.sources
        show.perPage = query.limit
        show.after = query.after
        show.page = query.page ?? 1
        show.lentStore = lentStore
        let aggregator = self.aggregator
        let request = show
        // The feeds the listing covers, as `show` narrows them: what a document is named after.
        let names = show.declaredFeeds ?? []
        let listed = query.feeds.isEmpty ? names : names.filter(query.feeds.contains)
        do {
            let page = try await Aggregator.offPool { try aggregator.show(request) }
            return (page, listed)
        } catch {
            throw problem(error)
        }
    }

    /// `feedagg feeds --format json` for the running configuration, without the absolute path of
    /// the configuration that owns each feed, and with the store's and the configuration's paths
    /// in a stored error (a page that could not be saved names the store) replaced by `the store`
    /// and `feeds.yaml`: nothing about the server's files is shown.
    func feedStatuses() async throws(RequestProblem) -> [FeedStatus] {
        let aggregator = self.aggregator
        let settings = self.settings
        let declared = configuration.current.document.feeds
        let lent = lentStore
        do {
            return try await Aggregator.offPool {
                let storePath = try? aggregator.configuredLocation(settings.store, config: settings.configPath)
                    .resolve(environment: aggregator.environment, config: settings.configPath).path
                let configPaths = [settings.configPath, FeedStore.canonicalConfigPath(settings.configPath)]
                return try aggregator.feedStatuses(
                    declared: declared, configPath: settings.configPath, store: settings.store, lent: lent)
                    .map { status in
                        var status = status
                        status.stored?.config = nil
                        let lastError = status.stored?.lastError.map { error in
                            var text = storePath.map { error.replacingOccurrences(of: $0, with: "the store") } ?? error
                            for path in configPaths where path.hasPrefix("/") {
                                text = text.replacingOccurrences(of: path, with: "feeds.yaml")
                            }
                            return text
                        }
                        status.stored?.lastError = lastError
                        return status
                    }
            }
        } catch {
            throw problem(error)
        }
    }

    /// The problem to answer for `error`: a bad cursor is the client's; the store's details (its
    /// path) go to standard error only.
    func problem(_ error: any Error) -> RequestProblem {
        if let problem = error as? RequestProblem { return problem }
        if let error = error as? StoreError {
            if error.kind == .invalidCursor { return RequestProblem(.badRequest, "invalid cursor: \(error.detail)") }
            aggregator.console.error("feedagg serve: \(error)")
            return RequestProblem(.serviceUnavailable, "the store is unavailable (\(error.kind)); see the server's log")
        }
        if let error = error as? ConfigError { return RequestProblem(.badRequest, error.message) }
        aggregator.console.error("feedagg serve: \(error)")
        return RequestProblem(.internalServerError, "internal error; see the server's log")
    }
}
