import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The threads the server reads its store on: a fixed number, started with the server and shut
/// down with it. Store reads block (GRDB's `DatabasePool.read`, the PostgreSQL store's
/// synchronous reads), so they run here rather than on the event loops or Swift's cooperative
/// pool, and no request starts a thread or a queue of its own.
///
/// Each read has a deadline (``run(timeout:_:)``): past it the request is answered without the
/// read's result (the thread finishes the read, bounded by the store's own limits, and its result
/// is dropped), so a stuck store costs its readers 503s, not connections held forever.
final class StoreReadPool: Sendable {
    private let threads: NIOThreadPool
    /// How many threads the pool has (how many reads run on it at once).
    let count: Int

    /// A pool of `count` threads, started.
    init(threads count: Int) {
        self.count = max(1, count)
        threads = NIOThreadPool(numberOfThreads: self.count)
        threads.start()
    }

    /// Runs `body` on one of the pool's threads; throws ``Timeout`` when it has not returned
    /// within `timeout` (counted from the call: a read waiting for a free thread counts too).
    func run<T: Sendable>(timeout: Duration, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let answer = Once(continuation)
            let nanoseconds = Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
            // Cancelled when the read returns: a deadline left scheduled for every read piled up
            // 30 s worth of timers (300,000 at 10,000 reads a second).
            let deadline = loop.scheduleTask(in: .nanoseconds(nanoseconds)) {
                answer.resume(with: .failure(Timeout(limit: timeout)))
            }
            threads.runIfActive(eventLoop: loop, body).whenComplete { result in
                deadline.cancel()
                answer.resume(with: result)
            }
        }
    }

    /// Ends the threads once the work queued on them is done.
    func shutdown() async {
        try? await threads.shutdownGracefully()
    }

    /// A read that did not return in time.
    struct Timeout: Error, CustomStringConvertible {
        let limit: Duration
        var description: String { "the store did not answer within \(limit)" }
    }

    /// A continuation resumed by whichever comes first, the read or its deadline.
    private final class Once<T: Sendable>: Sendable {
        private let slot: Mutex<CheckedContinuation<T, any Error>?>

        init(_ continuation: CheckedContinuation<T, any Error>) {
            slot = Mutex(continuation)
        }

        func resume(with result: Result<T, any Error>) {
            slot.withLock { $0.take() }?.resume(with: result)
        }
    }
}
