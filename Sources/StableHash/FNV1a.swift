/// 64-bit FNV-1a (Fowler–Noll–Vo): a hash that is the same across runs, builds and platforms
/// (unlike `Hasher`), for what is derived from text and must not change: a replay store's file
/// name, a feed entry's digest id, the CPU benchmark's checksum of its output.
public struct FNV1a: Sendable, Hashable {
    @usableFromInline var state: UInt64

    /// The hash of nothing yet: the FNV offset basis.
    @inlinable public init() { state = 0xcbf2_9ce4_8422_2325 }

    /// The hash of everything combined so far.
    @inlinable public var value: UInt64 { state }

    /// Folds `bytes` into the hash, one byte at a time (inlinable: a benchmark hashes megabytes).
    @inlinable public mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    }

    /// The hash of `text`'s UTF-8, as 16 lowercase hex digits.
    public static func hex(_ text: String) -> String {
        var hash = FNV1a()
        hash.combine(text.utf8)
        let digits = String(hash.value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
