@testable import FeedaggServer
import Foundation
import Testing

// The cap on requests handled at once (issue 25 item 5): a full gate turns a request away after
// its patience, hands a freed slot to the longest waiter, and refuses at once beyond its line.

@Suite("serve: the admission gate")
struct AdmissionGateTests {
    @Test("a full gate turns a waiter away after its patience; a freed slot goes to a waiter; the line is bounded")
    func gate() async throws {
        let gate = AdmissionGate(limit: 2, queueLimit: 1)
        #expect(await gate.enter(waitingAtMost: .milliseconds(10)))
        #expect(await gate.enter(waitingAtMost: .milliseconds(10)))
        #expect(gate.inFlight == 2)
        let started = ContinuousClock.now
        #expect(await !gate.enter(waitingAtMost: .milliseconds(200)), "no slot came within the patience")
        #expect(ContinuousClock.now - started >= .milliseconds(200))

        // A waiter gets the slot a finished request frees; while it waits, the line (1) is full.
        async let waiter = gate.enter(waitingAtMost: .seconds(60))
        while gate.waiting < 1 { try await Task.sleep(for: .milliseconds(10)) }
        let refused = ContinuousClock.now
        #expect(await !gate.enter(waitingAtMost: .seconds(60)), "the line is full: turned away")
        // At once, not after its minute of patience (the margin is for a loaded machine).
        #expect(ContinuousClock.now - refused < .seconds(30), "turned away at once, not after its patience")
        #expect(gate.waiting == 1)
        gate.leave()
        #expect(await waiter, "the freed slot went to the waiter")
        #expect(gate.inFlight == 2)
        gate.leave()
        gate.leave()
        #expect(gate.inFlight == 0)
    }
}
