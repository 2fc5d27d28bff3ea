import Foundation

extension FeedItem {
    /// A 64-bit digest of the item's content (every mapped field and the raw JSON), stable across
    /// processes and releases: the store keeps it to tell a changed item from an unchanged one, and
    /// the engine compares it to stop an incremental pull at items already stored unchanged.
    /// After ``dropRaw()``, the digest taken just before `raw` was dropped.
    public var contentDigest: Int64 { digestOfDroppedRaw ?? ContentHash.of(self) }
}

/// A 64-bit FNV-1a digest of an item's stored content (mapped fields and raw JSON), used to tell an
/// unchanged item from a changed one without reading its row back. Fields are length-prefixed and
/// tagged for presence, so `nil` and `""` and field boundaries cannot collide structurally.
struct ContentHash {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325

    static func of(_ item: FeedItem) -> Int64 {
        var hasher = ContentHash()
        hasher.add(item.id)
        hasher.add(item.title)
        hasher.add(item.summary)
        hasher.add(item.url)
        hasher.add(item.author?.name)
        hasher.add(item.author?.url)
        hasher.add(item.author?.avatarURL)
        hasher.add(item.imageURL)
        hasher.add(item.published?.timeIntervalSince1970)
        hasher.add(item.updated?.timeIntervalSince1970)
        hasher.add(item.raw)
        return Int64(bitPattern: hasher.state)
    }

    private mutating func byte(_ value: UInt8) {
        state ^= UInt64(value)
        state &*= 0x0000_0100_0000_01b3
    }

    private mutating func word(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { byte(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private mutating func bytes(_ buffer: UnsafeRawBufferPointer) {
        byte(1)
        word(UInt64(buffer.count))
        var state = self.state
        for value in buffer {
            state ^= UInt64(value)
            state &*= 0x0000_0100_0000_01b3
        }
        self.state = state
    }

    mutating func add(_ text: String?) {
        guard var text else { return byte(0) }
        text.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
    }

    mutating func add(_ data: Data?) {
        guard let data else { return byte(0) }
        data.withUnsafeBytes { bytes($0) }
    }

    mutating func add(_ number: Double?) {
        guard let number else { return byte(0) }
        byte(1)
        word(number.bitPattern)
    }
}
