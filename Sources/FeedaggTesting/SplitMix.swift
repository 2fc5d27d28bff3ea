public import DeterministicRandom

/// The deterministic generator tests seed (``DeterministicRandom/SplitMix``), under the name the
/// suites use.
public typealias SplitMix = DeterministicRandom.SplitMix
