package import FeedCore
import Foundation

/// An item with the values an engine computes from it before its write transaction: pure CPU work,
/// done outside the lock so writers of other feeds are not kept waiting on it.
package struct PreparedItem: Sendable {
    /// The item as it is stored (without its raw JSON unless the store keeps it).
    package var item: FeedItem
    /// The digest of the item as it came (raw JSON included).
    package var hash: Int64
    /// Its dedup key (``UnifiedStream/dedupKey(_:source:)``).
    package var dedupKey: String
    /// The item came without raw JSON: a page rebuilt from the store (a `304`), or a source
    /// that keeps none (not an item whose raw JSON the engine dropped after taking its digest).
    package var cameWithoutRaw: Bool

    /// Digests and dedup keys of `items`. Without `keepRaw`, the raw JSON is dropped here, after the
    /// digest is taken from the item as it came.
    package static func prepare(_ items: [FeedItem], source: String, keepRaw: Bool = true) -> [PreparedItem] {
        items.map { item in
            var stored = item
            if !keepRaw { stored.raw = nil }
            return PreparedItem(
                item: stored, hash: item.contentDigest, dedupKey: UnifiedStream.dedupKey(item, source: source),
                cameWithoutRaw: item.raw == nil && item.digestOfDroppedRaw == nil)
        }
    }
}

extension HTTPCacheEntry {
    /// Header fields as a JSON list of `[name, value]` pairs, keeping order and repeats.
    package static func encodeHeaders(_ headers: HTTPHeaders) throws -> String {
        let pairs = headers.fields.map { [$0.name, $0.value] }
        return String(decoding: try JSONEncoder().encode(pairs), as: UTF8.self)
    }

    /// The header fields of ``encodeHeaders(_:)``'s JSON; `nil` when it is not that.
    package static func decodeHeaders(_ text: String) -> HTTPHeaders? {
        guard let pairs = try? JSONDecoder().decode([[String]].self, from: Data(text.utf8)) else { return nil }
        var headers = HTTPHeaders()
        for pair in pairs {
            guard pair.count == 2 else { return nil }
            headers.add(pair[0], pair[1])
        }
        return headers
    }
}
