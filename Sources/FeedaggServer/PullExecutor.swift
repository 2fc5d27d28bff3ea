import Dispatch

/// Where one pull of `feedagg serve` runs: a ``TaskExecutor`` on a serial dispatch queue of its
/// own, not Swift's cooperative pool.
///
/// A pull calls the store synchronously (opening it, committing each feed, reading the report
/// back, closing it); on PostgreSQL each such call blocks its thread while PostgresNIO works.
///
/// - Not the cooperative pool: there, a few pulls at once blocked the HTTP server, the heartbeats
///   of the shared schedule and the shutdown with them (two threads on a 2-core machine).
/// - Not a concurrent dispatch queue either: on Linux it runs on the same threads as the
///   cooperative pool (libdispatch's default-QoS root queue), which grows only by about a thread a
///   second when its threads block. With 16 pulls blocked on the store, a worker's heartbeats
///   stopped, its leases expired under it, and a SIGTERM then outlived ServiceLifecycle's grace.
/// - A serial queue is "overcommit": libdispatch gives it a thread of its own whenever it has work.
///   So every pull gets one thread, however many block, and nothing else waits for them.
///
/// One pull's feeds share its thread: their CPU work is small next to the network, and their
/// store calls are one at a time anyway.
final class PullExecutor: TaskExecutor {
    private let queue: DispatchQueue

    /// An executor for one pull (`label` names its thread in a backtrace).
    init(label: String = "feedagg.serve.pull") {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
