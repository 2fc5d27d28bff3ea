// The PostgreSQL store is built with the PostgreSQL trait (the default; Package.swift).
#if PostgreSQL

import Dispatch
import Foundation
import NIOPosix
import Synchronization

/// Runs PostgresNIO's async API for the synchronous ``StoreDriver`` methods without touching Swift's
/// cooperative pool or an event loop.
///
/// The store's callers are synchronous and often run on the cooperative pool (a pull commits from its
/// tasks); blocking one of its threads on work that itself needs the pool can deadlock a 2-core
/// machine. So every store call runs in a task whose executor preference is ``executor``, a
/// ``TaskExecutor`` on a dispatch queue of its own: the task's code, and the continuations PostgresNIO
/// resumes from its event loops, run there, and the caller waits on a semaphore. The client's
/// `run()` loop runs under the same preference. Calling from a NIO event loop thread is still wrong
/// (it would stall that loop's connections): callers there hop off first, as `feedagg serve` does.
final class PostgresBridge: Sendable {
    /// The executor the store's tasks prefer.
    let executor = QueueTaskExecutor()

    /// The caller stopped waiting for a read after `after` (see ``wait(timeout:_:)``).
    struct TimedOut: Error {
        let after: Duration
    }

    /// Runs `body` to completion on ``executor`` and returns its result, blocking the calling thread.
    ///
    /// With a `timeout`, the caller waits that long at most and then gets ``TimedOut``; `body`
    /// goes on by itself and its result is dropped, so only reads may be given one (a write that
    /// lands after its caller gave up would be reported as failed).
    func wait<T: Sendable>(timeout: Duration? = nil, _ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        // Detached: nothing of the caller's task (its task-locals, such as ServiceLifecycle's
        // graceful shutdown) reaches the driver's work.
        Task.detached(executorPreference: executor) {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            box.withLock { $0 = result }
            done.signal()
        }
        if let timeout {
            let nanoseconds = Int(min(timeout.seconds, 86_400) * 1e9)
            guard done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { throw TimedOut(after: timeout) }
        } else {
            done.wait()
        }
        return try box.withLock { $0! }.get()
    }
    /// ``wait(timeout:_:)`` for an async caller: `body` runs on ``executor`` (Swift's cooperative
    /// pool may be held by callers blocked on the store, such as a test's synchronous calls, and
    /// work waiting for one of its threads would time out), and the caller awaits it without a
    /// thread blocked. After `timeout` the caller gets ``TimedOut``, `body` is cancelled and its
    /// result dropped (reads only, as for ``wait(timeout:_:)``).
    ///
    /// With `onCallersPool`, `body` runs on Swift's cooperative pool instead, for a caller whose
    /// own work runs there anyway (`feedagg serve`'s requests): no trip through the serial queue
    /// on the way in and out, and reads decoded on every core. (Served pages of the 1,000,000-item
    /// bench store: about a fifth more a second than through the queue.)
    func value<T: Sendable>(
        timeout: Duration, onCallersPool: Bool = false, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let answer = Mutex<CheckedContinuation<T, any Error>?>(continuation)
            let finish: @Sendable (Result<T, any Error>) -> Void = { result in
                answer.withLock { $0.take() }?.resume(with: result)
            }
            let work = Mutex<Task<Void, Never>?>(nil)
            // Scheduled first, so the work cannot end before its deadline exists to be cancelled.
            let deadline = MultiThreadedEventLoopGroup.singleton.next().scheduleTask(
                in: .nanoseconds(Int64(min(timeout.seconds, 86_400) * 1e9))
            ) {
                finish(.failure(TimedOut(after: timeout)))
                work.withLock { $0 }?.cancel()
            }
            work.withLock { task in
                task = Task.detached(executorPreference: onCallersPool ? nil : executor) {
                    let result: Result<T, any Error>
                    do { result = .success(try await body()) } catch { result = .failure(error) }
                    deadline.cancel()
                    finish(result)
                }
            }
        }
    }
}

/// A ``TaskExecutor`` running jobs on a serial dispatch queue (a thread of libdispatch's own, not
/// Swift's cooperative pool).
///
/// Serial on purpose: libdispatch gives a serial queue a thread whenever it has work (it is
/// "overcommit"), while a concurrent queue shares the default pool with `DispatchQueue.global()`,
/// where the store's callers block. With 30 feeds of a `feedagg serve` worker committing at once,
/// those callers held every thread of that pool and the jobs that would have answered them waited
/// for one (the calls took tens of seconds). The jobs are short (up to the next `await` on
/// PostgresNIO), so one thread keeps up.
final class QueueTaskExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "feedagg.postgres")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

#endif
