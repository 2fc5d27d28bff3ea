import Dispatch

/// Runs a server's connection tasks on a Dispatch queue of their own instead of Swift's
/// cooperative pool.
///
/// The cooperative pool has one thread per core. In a test process it also runs every test body,
/// and a test that computes for a while (a seeded store comparison, a 50 MB parse) holds a thread
/// as long as it computes; on a 2-core machine two such tests left the loopback servers of every
/// other test unanswered for seconds, so their clients timed out. With this executor preferred,
/// the accept loop, each connection, the handlers and their sleeps run on Dispatch's own threads.
final class ServerTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
