import FeedStore
import Foundation

/// What `feedagg prune` would delete, and what it keeps although the configuration does not declare it.
public struct PrunePlan: Sendable {
    /// Feeds this configuration pulled and no longer declares: deleted (name, stored items).
    public var doomed: [(name: String, items: Int)] = []
    /// Feeds another configuration owns: kept (name, that configuration's path).
    public var otherConfigs: [(name: String, config: String)] = []
    /// Feeds whose owner is unknown (stored before feedagg recorded owners): kept unless asked.
    public var unowned: [(name: String, items: Int)] = []
    /// The store's path (a PostgreSQL URL redacted).
    public var storePath: String = ""
    /// The store.
    public var store: StoreLocation = .standard
}

extension Aggregator {
    /// The plan of `feedagg prune` for the configuration at `configPath`: the stored feeds it owns
    /// and no longer declares (plus, with `includeUnowned`, those of unknown owner). Nothing is
    /// deleted; an absent store plans nothing.
    public func prunePlan(configPath: String, store location: StoreLocation, includeUnowned: Bool = false) throws
        -> PrunePlan
    {
        let declared = Set(try declaredFeeds(configPath: configPath).map(\.name))
        let location = configuredLocation(location, config: configPath)
        let (path, _) = try location.resolve(environment: environment, config: configPath)
        var plan = PrunePlan(storePath: path, store: location)
        let store: any StoreDriver
        if case .postgres(let text) = location {
            store = try openPostgres(text)
        } else {
            guard FileManager.default.fileExists(atPath: path) else {
                if location == .standard { noteLegacyStore(newPath: path) }
                return plan
            }
            store = try FeedStore.open(path: path)
        }
        defer { try? store.close() }
        let owner = FeedStore.canonicalConfigPath(configPath)
        for summary in try store.feedSummaries() where !declared.contains(summary.name) {
            switch summary.config {
            case owner?: plan.doomed.append((summary.name, summary.itemCount))
            case nil where includeUnowned: plan.doomed.append((summary.name, summary.itemCount))
            case nil: plan.unowned.append((summary.name, summary.itemCount))
            case let other?: plan.otherConfigs.append((summary.name, other))
            }
        }
        return plan
    }

    /// Deletes the feeds `plan` dooms (with their items and cache), in one transaction.
    public func prune(_ plan: PrunePlan) throws {
        guard !plan.doomed.isEmpty else { return }
        let store: any StoreDriver =
            if case .postgres(let text) = plan.store { try openPostgres(text) } else { try FeedStore.open(path: plan.storePath) }
        defer { try? store.close() }
        try store.delete(feeds: plan.doomed.map(\.name))
    }
}
