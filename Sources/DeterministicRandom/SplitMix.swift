/// A deterministic random number generator (SplitMix64): a test, a generated store or a benchmark's
/// pages seeded with it can be made again from its seed.
public struct SplitMix: RandomNumberGenerator {
    /// The generator's state; the seed when created.
    public var state: UInt64

    /// A generator starting from `state`.
    public init(state: UInt64) { self.state = state }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SplitMix {
    /// A number in `0..<n` (`n` > 0).
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// One of `values` (not empty).
    public mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
    /// `true` with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }
}
