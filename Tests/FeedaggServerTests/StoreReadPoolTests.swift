@testable import FeedaggServer
import Foundation
import Testing

// A store read's deadline (issue 25 item 5, the per-request time limit): a read that does not
// return in time is answered as a timeout at its deadline; its thread finishes it and the late
// result is dropped; a read in time returns its value.

@Suite("serve: store reads have a deadline")
struct StoreReadPoolTests {
    @Test("a slow read times out at its deadline; a quick one returns; the late result is dropped")
    func deadline() async throws {
        let pool = StoreReadPool(threads: 1)
        #expect(try await pool.run(timeout: .seconds(60)) { 42 } == 42)
        let started = ContinuousClock.now
        await #expect(throws: StoreReadPool.Timeout.self) {
            _ = try await pool.run(timeout: .milliseconds(200)) { () -> Int in
                Thread.sleep(forTimeInterval: 1.5)
                return 1
            }
        }
        // The throw itself says the deadline came first (a read that returned first gives its value).
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(200), "not before the deadline: \(waited)")
        // The one thread is still busy with the slow read: a read queued behind it waits for it.
        #expect(try await pool.run(timeout: .seconds(60)) { "after" } == "after")
        await pool.shutdown()
    }
}
