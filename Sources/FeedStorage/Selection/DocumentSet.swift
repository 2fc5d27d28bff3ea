package import FeedSearch

/// A set of index keys (SQLite's `item.doc`, the full-text index's rowid), held as a sorted list
/// when it is small and as a bitmap when it is large: a search's count combines the sets of its
/// terms in memory (``TextSet/documents(_:)``) instead of asking the index to count them.
///
/// A bitmap of a 1,000,000-item store is 125 KB; combining two costs tens of microseconds where
/// FTS5 counting a word in a tenth of the store costs about 4 ms (it decodes every entry of the
/// word's list, every time).
package struct DocumentSet: Sendable, Equatable {
    private enum Storage: Equatable {
        /// Ascending, no repeats.
        case sparse([Int64])
        /// Bit `k` of word `k / 64` is key `k`; `count` is the number of bits set.
        case dense(words: [UInt64], count: Int)
    }

    private var storage: Storage

    /// The empty set.
    package static let empty = DocumentSet(storage: .sparse([]))

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The set of `keys`, which are ascending and not negative (the order the index returns its
    /// rowids in); a list holding more than one key in 64 of its range is kept as a bitmap.
    package init(ascending keys: [Int64]) {
        precondition(keys.first.map { $0 >= 0 } ?? true, "document keys are not negative")
        self.init(storage: .sparse(keys))
        if let last = keys.last, Int64(keys.count) * 64 > last { self = densified }
    }

    /// The number of keys.
    package var count: Int {
        switch storage {
        case .sparse(let keys): keys.count
        case .dense(_, let count): count
        }
    }

    /// Memory held, in bytes (what a cache of sets weighs).
    package var bytes: Int {
        switch storage {
        case .sparse(let keys): keys.count * 8
        case .dense(let words, _): words.count * 8
        }
    }

    /// Whether `key` is in the set.
    package func contains(_ key: Int64) -> Bool {
        switch storage {
        case .sparse(let keys): return Self.search(keys, key)
        case .dense(let words, _):
            guard key >= 0 else { return false }
            let word = Int(key >> 6)
            return word < words.count && words[word] & (1 << UInt64(key & 63)) != 0
        }
    }

    /// The number of keys in both sets, without making their intersection.
    package func intersectionCount(_ other: DocumentSet) -> Int {
        switch (storage, other.storage) {
        case (.dense(let mine, _), .dense(let theirs, _)):
            var total = 0
            for index in 0..<min(mine.count, theirs.count) { total += (mine[index] & theirs[index]).nonzeroBitCount }
            return total
        case (.sparse(let keys), _): return keys.reduce(0) { $0 + (other.contains($1) ? 1 : 0) }
        case (_, .sparse(let keys)): return keys.reduce(0) { $0 + (contains($1) ? 1 : 0) }
        }
    }

    /// The keys in both sets.
    package func intersection(_ other: DocumentSet) -> DocumentSet {
        switch (storage, other.storage) {
        case (.dense(let mine, _), .dense(let theirs, _)):
            var words = [UInt64](repeating: 0, count: min(mine.count, theirs.count))
            var total = 0
            for index in words.indices {
                words[index] = mine[index] & theirs[index]
                total += words[index].nonzeroBitCount
            }
            return DocumentSet(storage: .dense(words: words, count: total))
        case (.sparse(let keys), _): return DocumentSet(storage: .sparse(keys.filter(other.contains)))
        case (_, .sparse(let keys)): return DocumentSet(storage: .sparse(keys.filter(contains)))
        }
    }

    /// The keys in either set.
    package func union(_ other: DocumentSet) -> DocumentSet {
        switch (storage, other.storage) {
        case (.sparse(let mine), .sparse(let theirs)):
            return DocumentSet(ascending: Self.merge(mine, theirs))
        case (.dense, .sparse(let keys)): return inserting(keys)
        case (.sparse(let keys), .dense): return other.inserting(keys)
        case (.dense(let mine, _), .dense(let theirs, _)):
            let (long, short) = mine.count >= theirs.count ? (mine, theirs) : (theirs, mine)
            var words = long
            for index in short.indices { words[index] |= short[index] }
            return DocumentSet(storage: .dense(words: words, count: words.reduce(0) { $0 + $1.nonzeroBitCount }))
        }
    }

    /// The set as a bitmap.
    private var densified: DocumentSet {
        guard case .sparse(let keys) = storage else { return self }
        return DocumentSet(storage: .dense(words: [], count: 0)).inserting(keys)
    }

    /// A bitmap with `keys` added (`self` is a bitmap).
    private func inserting(_ keys: [Int64]) -> DocumentSet {
        guard case .dense(var words, var total) = storage else { preconditionFailure("inserting into a list") }
        if let last = keys.last, Int(last >> 6) >= words.count {
            words.append(contentsOf: repeatElement(0, count: Int(last >> 6) + 1 - words.count))
        }
        for key in keys {
            let (word, bit) = (Int(key >> 6), UInt64(1) << UInt64(key & 63))
            if words[word] & bit == 0 {
                words[word] |= bit
                total += 1
            }
        }
        return DocumentSet(storage: .dense(words: words, count: total))
    }

    /// Whether the ascending `keys` hold `key`.
    private static func search(_ keys: [Int64], _ key: Int64) -> Bool {
        var (low, high) = (0, keys.count)
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key
    }

    /// The ascending union of two ascending lists.
    private static func merge(_ left: [Int64], _ right: [Int64]) -> [Int64] {
        var merged: [Int64] = []
        merged.reserveCapacity(left.count + right.count)
        var (i, j) = (0, 0)
        while i < left.count, j < right.count {
            if left[i] < right[j] {
                merged.append(left[i]); i += 1
            } else if right[j] < left[i] {
                merged.append(right[j]); j += 1
            } else {
                merged.append(left[i]); i += 1; j += 1
            }
        }
        merged.append(contentsOf: left[i...])
        merged.append(contentsOf: right[j...])
        return merged
    }
}

extension TextSet {
    /// The terms of the set, in order, each once.
    package var terms: [SearchQuery.TextTerm] {
        var seen = Set<SearchQuery.TextTerm>()
        var terms: [SearchQuery.TextTerm] = []
        func visit(_ set: TextSet) {
            switch set {
            case .term(let term): if seen.insert(term).inserted { terms.append(term) }
            case .all(let parts), .any(let parts): parts.forEach(visit)
            }
        }
        visit(self)
        return terms
    }

    /// The keys of the rows in the set, from the keys of each term's rows (`term`, which an engine
    /// answers from its index and may keep); `nil` for a set of every row (an `all` of nothing),
    /// which has no list to give.
    package func documents(_ term: (SearchQuery.TextTerm) throws -> DocumentSet) rethrows -> DocumentSet? {
        switch self {
        case .term(let text): return try term(text)
        case .all(let parts):
            var result: DocumentSet?
            for part in parts {
                guard let set = try part.documents(term) else { return nil }
                result = result.map { $0.intersection(set) } ?? set
                if result?.count == 0 { return .empty }
            }
            return result
        case .any(let parts):
            var result = DocumentSet.empty
            for part in parts {
                guard let set = try part.documents(term) else { return nil }
                result = result.union(set)
            }
            return result
        }
    }
}
