import FeedSearch
import FeedStorage
import Foundation
import Testing

/// Which narrowed reads may keep their `total_items` until the store changes.
@Suite("Totals kept per change")
struct StreamTotalsKeyTests {
    static func selection(_ query: String, rules: [String] = [], feedRules: [String] = [], now: Date? = nil) throws
        -> StreamSelection
    {
        let global = try rules.map { FilterRule(.drop, query: try SearchQuery(parsing: $0), text: $0) }
        let own = try feedRules.map { FilterRule(.keep, query: try SearchQuery(parsing: $0), text: $0) }
        return StreamSelection(
            query: try SearchQuery(parsing: query), rules: FilterRules(global: global, feeds: own.isEmpty ? [:] : ["a": own]),
            now: now)
    }

    @Test("an age counted from the time of the read is never kept; anything else is")
    func ages() throws {
        #expect(try Self.selection("swift OR rust -title:go after:2026-01-01 feed:a").isFixedBetweenChanges)
        #expect(try !Self.selection("swift newer:7d").isFixedBetweenChanges)
        #expect(try !Self.selection("swift -(rust OR older:2h)").isFixedBetweenChanges)
        #expect(try !Self.selection("swift", rules: ["older:1w"]).isFixedBetweenChanges)
        #expect(try !Self.selection("swift", feedRules: ["newer:3d"]).isFixedBetweenChanges)
        #expect(try Self.selection("swift newer:7d", now: Date(timeIntervalSince1970: 0)).isFixedBetweenChanges)
    }

    @Test("the key tells selections and listings apart")
    func keys() throws {
        let swift = StreamTotalsKey(listing: ["a", "b"], selection: try Self.selection("swift"))
        #expect(swift == StreamTotalsKey(listing: ["a", "b"], selection: try Self.selection("swift")))
        #expect(swift != StreamTotalsKey(listing: ["b", "a"], selection: try Self.selection("swift")))
        #expect(swift != StreamTotalsKey(listing: ["a", "b"], selection: try Self.selection("swift*")))
        #expect(swift != StreamTotalsKey(listing: ["a", "b"], selection: try Self.selection("swift", rules: ["rust"])))
    }
}
