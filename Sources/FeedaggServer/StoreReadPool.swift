import NIOPosix

/// The threads the server reads its store on: a fixed number, started with the server and shut
/// down with it. Store reads block (GRDB's `DatabasePool.read`, the PostgreSQL store's
/// synchronous reads), so they run here rather than on the event loops or Swift's cooperative
/// pool, and no request starts a thread or a queue of its own.
final class StoreReadPool: Sendable {
    private let threads: NIOThreadPool

    /// A pool of `count` threads, started.
    init(threads count: Int) {
        threads = NIOThreadPool(numberOfThreads: max(1, count))
        threads.start()
    }

    /// Runs `body` on one of the pool's threads.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threads.runIfActive(body)
    }

    /// Ends the threads once the work queued on them is done.
    func shutdown() async {
        try? await threads.shutdownGracefully()
    }
}
