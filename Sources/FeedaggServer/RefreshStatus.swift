import FeedaggKit
import FeedCore
import Foundation

/// The answer of `GET /api/refresh/status` and `POST /api/refresh` (docs/serve.md shows one).
struct RefreshStatus: Sendable {
    /// One feed's schedule.
    struct Feed: Sendable {
        var name: String
        var schedule: FeedSchedule
        /// When the next pull starts (`nil` while one runs).
        var nextPullAt: Date?
        /// The worker holding the feed's lease (shared schedule only, see ``shared``).
        var worker: String? = nil
        /// Whether the schedule is shared by workers on PostgreSQL: the answer then has `worker`.
        var shared = false

        /// `pulling`, `scheduled` or `backing_off` (after a failure).
        var state: String {
            if schedule.running { return "pulling" }
            return schedule.failures > 0 ? "backing_off" : "scheduled"
        }

        var json: JSON {
            func date(_ value: Date?) -> JSON { .optionalString(value.map(ISO8601.string(from:))) }
            var fields: [(String, JSON)] = [
                ("name", .string(name)), ("state", .string(state)),
                ("interval_seconds", .int(Int(schedule.interval.rounded()))),
                ("next_pull_at", date(nextPullAt)),
                ("last_started_at", date(schedule.lastStartedAt)), ("last_finished_at", date(schedule.lastFinishedAt)),
                ("last_result", .optionalString(schedule.lastResult?.rawValue)),
                ("last_error", .optionalString(schedule.lastError)),
                ("new_items", schedule.newItems.map(JSON.int) ?? .null),
                ("failures", .int(schedule.failures)),
                ("rate_limited_until", date(schedule.rateLimitedUntil)),
            ]
            if shared { fields.append(("worker", .optionalString(worker))) }
            return .object(fields)
        }
    }

    /// The number of the latest refresh request (0: none yet).
    var refresh: Int
    /// Whether every feed of that request finished a pull started after it.
    var done: Bool
    /// Every declared feed, in declaration order.
    var feeds: [Feed]

    /// The document: `{"refresh":N,"done":B,"pulling":[…],"feeds":[…]}`.
    var json: String {
        JSON.object([
            ("refresh", .int(refresh)), ("done", .bool(done)),
            ("pulling", .array(feeds.filter { $0.schedule.running }.map { .string($0.name) })),
            ("feeds", .array(feeds.map(\.json))),
        ]).serialized() + "\n"
    }
}
