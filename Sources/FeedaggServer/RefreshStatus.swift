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

    /// The feeds a refresh request refused (the answer to `POST /api/refresh` only).
    var refused: [RefreshAnswer.Refusal] = []

    /// The document: `{"refresh":N,"done":B,"pulling":[…],"feeds":[…]}`, and `"refused":[…]` when
    /// a refresh request refused feeds.
    var json: String {
        var fields: [(String, JSON)] = [
            ("refresh", .int(refresh)), ("done", .bool(done)),
            ("pulling", .array(feeds.filter { $0.schedule.running }.map { .string($0.name) })),
            ("feeds", .array(feeds.map(\.json))),
        ]
        if !refused.isEmpty { fields.append(("refused", .array(refused.map(\.json)))) }
        return JSON.object(fields).serialized() + "\n"
    }

    /// This status with every feed's last error as it may be served.
    func scrubbed(_ text: PrivateText) -> RefreshStatus {
        var status = self
        for index in status.feeds.indices {
            status.feeds[index].schedule.lastError = status.feeds[index].schedule.lastError.map(text.scrubbed)
        }
        return status
    }
}

/// What a refresh request got: its number, the feeds made due, and the feeds refused.
struct RefreshAnswer: Sendable {
    /// Why a feed was not made due.
    enum Reason: String, Sendable {
        /// Pulled less than `min_refresh` ago, or being pulled now.
        case pulledRecently = "pulled_recently"
        /// Backing off after failures.
        case backingOff = "backing_off"
        /// Stopped by a rate limit until its reset.
        case rateLimited = "rate_limited"
    }

    /// A feed not made due, and the seconds until a refresh may pull it.
    struct Refusal: Sendable {
        var feed: String
        var reason: Reason
        var wait: TimeInterval

        var json: JSON {
            .object([
                ("name", .string(feed)), ("reason", .string(reason.rawValue)),
                ("retry_after_seconds", .int(Self.seconds(wait))),
            ])
        }

        /// `wait` rounded up to whole seconds, at least 1.
        static func seconds(_ wait: TimeInterval) -> Int { max(1, Int(wait.rounded(.up))) }
    }

    /// The request's number (``RefreshStatus/refresh``).
    var request: Int
    /// The feeds made due.
    var accepted: [String]
    /// The feeds refused.
    var refused: [Refusal]
}
