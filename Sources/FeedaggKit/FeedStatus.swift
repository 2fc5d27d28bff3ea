import FeedConfig
import FeedCore
public import FeedStore
public import Foundation

/// One line of `feedagg feeds`.
public struct FeedStatus: Sendable {
    /// How a stored or declared feed relates to the configuration in use.
    public enum Standing: Sendable, Equatable {
        /// The configuration declares it.
        case declared
        /// This configuration pulled it but no longer declares it (`feedagg prune` deletes it).
        case removed
        /// Another configuration file (its absolute path) owns it: `prune` here never touches it.
        case otherConfig(String)
        /// Not declared here, stored by a feedagg that did not record its configuration.
        case ownerUnknown
        /// Listed without any configuration (`--db` only).
        case stored
    }

    /// The feed's name.
    public var name: String
    /// Its source type (declared, else as last stored).
    public var source: String
    /// Whether feeds.yaml still declares it.
    public var declared: Bool
    /// What the store holds, `nil` when it was never pulled.
    public var stored: FeedSummary?
    /// Its relation to the configuration in use.
    public var standing: Standing = .declared
    /// Where its credential comes from, by name (`token: ${GITHUB_TOKEN}`), for declared feeds
    /// whose source type takes one.
    public var credential: String? = nil
    /// For an exec feed whose last pull failed: the standard error of its plugin's last run, as
    /// kept beside the store (``PluginStderrLog``).
    public var pluginStderr: String? = nil
    /// Where the feed stands in the schedule `feedagg serve` workers share on PostgreSQL (`nil`
    /// elsewhere): the JSON then has `worker` and `next_due_at`.
    public var workerSchedule: WorkerSchedule? = nil

    /// A feed in the schedule workers share (docs/worker-coordination.md).
    public struct WorkerSchedule: Sendable, Equatable {
        /// The worker holding its lease now (`host:pid:random`), `nil` when none does.
        public var worker: String?
        /// When it is due next.
        public var nextDueAt: Date

        /// Creates one.
        public init(worker: String?, nextDueAt: Date) {
            self.worker = worker
            self.nextDueAt = nextDueAt
        }
    }
}
