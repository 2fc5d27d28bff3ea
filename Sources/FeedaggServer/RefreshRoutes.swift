import FeedaggKit
import Foundation
import Hummingbird
import Prometheus

/// The routes of the schedule: `POST /api/refresh` (pull now), `GET /api/refresh/status`, and
/// `GET /metrics`.
struct RefreshRoutes: Sendable {
    let scheduler: PullScheduler
    let configuration: ConfigurationBox
    let metrics: PrometheusCollectorRegistry
    /// Reads the stored item counts for `feedagg_items`.
    let reader: StreamReader

    /// Adds the routes to `router`.
    func register(on router: Router<ServeRequestContext>) {
        router.post("/api/refresh") { request, _ in
            await answer {
                let names = configuration.current.names
                let requested = request.uri.queryParameters[values: "feed"].map(String.init).filter { !$0.isEmpty }
                for name in requested where !names.contains(name) {
                    throw RequestProblem(.notFound, "no feed named '\(name)'" + StreamQuery.hint(name, among: names, noun: "feeds"))
                }
                // The store's last attempt of each feed: pulls by other processes count too.
                var lastAttempts: [String: Date] = [:]
                for status in (try? await reader.feedStatuses()) ?? [] {
                    if let attempt = status.stored?.lastAttemptAt { lastAttempts[status.name] = attempt }
                }
                let refresh = await scheduler.requestRefresh(requested, lastAttempts: lastAttempts)
                var status = await scheduler.status().scrubbed(reader.privateText())
                status.refused = refresh.refused
                var response = StreamRoutes.response(status.json, type: MediaTypes.json)
                if refresh.accepted.isEmpty, let soonest = refresh.refused.map(\.wait).min() {
                    // Nothing to pull now: when the first refused feed may be refreshed.
                    ServerMetrics.recordRefused(.refreshTooSoon)
                    response.status = .tooManyRequests
                    response.headers[.retryAfter] = String(RefreshAnswer.Refusal.seconds(soonest))
                } else {
                    response.status = .accepted
                }
                return response
            }
        }
        router.readable("/api/refresh/status") { _, _ in
            StreamRoutes.response(await scheduler.status().scrubbed(reader.privateText()).json, type: MediaTypes.json)
        }
        router.readable("/metrics") { _, _ in
            // Stored items per feed, read at scrape time (a store that cannot be read leaves the last values).
            if let statuses = try? await reader.feedStatuses() {
                for status in statuses where status.declared {
                    ServerMetrics.recordStoredItems(feed: status.name, count: status.stored?.itemCount ?? 0)
                }
            }
            return StreamRoutes.response(metrics.emitToString(), type: MediaTypes.prometheus)
        }
    }
}
