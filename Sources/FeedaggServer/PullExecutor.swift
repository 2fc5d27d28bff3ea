import Dispatch

/// Where `feedagg serve` runs its pulls: a ``TaskExecutor`` on a concurrent dispatch queue of its
/// own, not Swift's cooperative pool.
///
/// A pull calls the store synchronously (opening it, reading the report back, closing it); on
/// PostgreSQL each such call blocks its thread while PostgresNIO works. On the cooperative pool
/// (two threads on a 2-core machine) a few pulls at once blocked the HTTP server, the heartbeats
/// of the shared schedule and the shutdown with it. A dispatch queue's threads can block.
final class PullExecutor: TaskExecutor {
    /// The one executor every pull prefers.
    static let shared = PullExecutor()

    private let queue = DispatchQueue(label: "feedagg.serve.pulls", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
