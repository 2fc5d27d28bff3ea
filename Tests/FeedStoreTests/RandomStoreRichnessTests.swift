import FeedaggTesting
import Foundation
import Testing

@testable import FeedStore

/// The random stores of the stream-order equivalence tests (StoreConformanceTests) hold what they
/// are meant to exercise; counted here, on SQLite, where the columns can be read directly.
@Suite("The random stores of the equivalence tests")
struct RandomStoreRichnessTests {
    @Test("the random stores hold duplicates across feeds, undated items placed and unplaced, and date ties")
    func storesAreRich() throws {
        let dir = try TemporaryFolder("stream-order")
        defer { dir.remove() }
        var shared = 0
        var unplaced = 0
        var placedUndated = 0
        var ties = 0
        for seed in 1...24 {
            let clock = TestClock()
            let store = try FeedStore.open(path: dir.path("s\(seed).sqlite"), now: clock.read)
            try RandomStreamStore.fill(store, seed: UInt64(seed), advance: clock.advance(by:))
            shared += Int(try store.strings(sql: "SELECT COUNT(*) FROM item WHERE shared = 1 AND staged = 0")[0]) ?? 0
            unplaced += Int(try store.strings(sql: "SELECT COUNT(*) FROM item WHERE sort_key IS NULL AND staged = 0")[0]) ?? 0
            placedUndated +=
                Int(try store.strings(
                    sql: "SELECT COUNT(*) FROM item WHERE sort_key IS NOT NULL AND published IS NULL AND updated IS NULL")[0]) ?? 0
            ties +=
                Int(try store.strings(
                    sql: "SELECT COUNT(*) FROM (SELECT sort_key FROM item WHERE staged = 0 GROUP BY sort_key HAVING COUNT(*) > 1)")[0])
                ?? 0
            try store.close()
        }
        #expect(shared > 50 && unplaced > 10 && placedUndated > 10 && ties > 20, "\(shared) \(unplaced) \(placedUndated) \(ties)")
    }
}
