import FeedSearch
import FeedStorage
import Testing

/// `DocumentSet` (lists and bitmaps of index keys) against Swift's `Set`, and a `TextSet`'s rows
/// made from its terms' rows.
@Suite("Document sets")
struct DocumentSetTests {
    /// A small deterministic generator (xorshift), so a failure repeats.
    struct Keys {
        var state: UInt64

        mutating func next(below bound: Int64) -> Int64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int64(state % UInt64(bound))
        }

        /// `count` keys below `bound`, ascending, no repeats.
        mutating func set(_ count: Int, below bound: Int64) -> [Int64] {
            Set((0..<count).map { _ in next(below: bound) }).sorted()
        }
    }

    @Test("union, intersection and their counts equal Set's, for lists, bitmaps and both", arguments: 1...40)
    func operations(seed: Int) {
        var keys = Keys(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1)
        // Sizes chosen so that either side is sometimes a list and sometimes a bitmap, and the
        // bitmaps have different lengths.
        let sizes: [(Int, Int64)] = [(3, 10_000), (2_000, 10_000), (500, 700), (0, 5), (9_000, 20_000), (40, 64)]
        let (leftSize, leftBound) = sizes[seed % sizes.count]
        let (rightSize, rightBound) = sizes[(seed / sizes.count) % sizes.count]
        let left = keys.set(leftSize, below: leftBound)
        let right = keys.set(rightSize, below: rightBound)
        let (a, b) = (DocumentSet(ascending: left), DocumentSet(ascending: right))
        let (setA, setB) = (Set(left), Set(right))
        #expect(a.count == setA.count && b.count == setB.count)
        #expect(a.intersectionCount(b) == setA.intersection(setB).count)
        #expect(b.intersectionCount(a) == setA.intersection(setB).count)
        let union = a.union(b)
        let intersection = a.intersection(b)
        #expect(union.count == setA.union(setB).count)
        #expect(intersection.count == setA.intersection(setB).count)
        for key in Int64(-1)...max(leftBound, rightBound) {
            #expect(union.contains(key) == setA.union(setB).contains(key), "union, key \(key)")
            #expect(intersection.contains(key) == setA.intersection(setB).contains(key), "intersection, key \(key)")
        }
    }

    @Test("a text set's rows are made from its terms' rows; an intersection of nothing has no list")
    func textSets() throws {
        func term(_ word: String) -> SearchQuery.TextTerm {
            SearchQuery.TextTerm(tokens: [word], prefix: false, field: nil)
        }
        let rows: [String: [Int64]] = ["swift": [1, 2, 3, 500], "rust": [3, 4, 700], "go": [2, 3, 4]]
        let documents = { (text: SearchQuery.TextTerm) in DocumentSet(ascending: rows[text.tokens[0]] ?? []) }
        let set = TextSet.all([.any([.term(term("swift")), .term(term("rust"))]), .term(term("go"))])
        let found = try #require(set.documents(documents))
        #expect((0...800).filter { found.contains(Int64($0)) } == [2, 3, 4])
        #expect(TextSet.any([]).documents(documents)?.count == 0)
        #expect(TextSet.all([]).documents(documents) == nil)
    }
}
