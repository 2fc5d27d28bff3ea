import FeedaggKit
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
    func register(on router: Router<BasicRequestContext>) {
        router.post("/api/refresh") { request, _ in
            await answer {
                let names = configuration.current.names
                let requested = request.uri.queryParameters[values: "feed"].map(String.init).filter { !$0.isEmpty }
                for name in requested where !names.contains(name) {
                    throw RequestProblem(.notFound, "no feed named '\(name)'" + StreamQuery.hint(name, among: names, noun: "feeds"))
                }
                _ = await scheduler.requestRefresh(requested)
                var response = StreamRoutes.response(await scheduler.status().json, type: MediaTypes.json)
                response.status = .accepted
                return response
            }
        }
        router.readable("/api/refresh/status") { _, _ in
            StreamRoutes.response(await scheduler.status().json, type: MediaTypes.json)
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
