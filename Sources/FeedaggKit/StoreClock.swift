import Foundation

/// The clock a command's store stamps its writes with (`first_seen_at`, pull times…): the real one,
/// or, for tests, a fixed instant.
///
/// With `FEEDAGG_TEST_STORE_CLOCK=EPOCH` (seconds) in the environment every store write is stamped
/// at `EPOCH`, so what derives from those stamps (an undated item's Atom `updated`, which is when
/// the store first saw it) is the same on every run: the golden-file tests of `--format atom` and
/// `jsonfeed` use it. Any other value, or none, leaves the real clock in place.
enum StoreClock {
    /// The environment variable that fixes the clock.
    static let variable = "FEEDAGG_TEST_STORE_CLOCK"

    /// The clock `environment` asks for.
    static func now(environment: [String: String]) -> @Sendable () -> Date {
        guard let value = environment[variable], let epoch = Double(value) else { return { Date() } }
        let fixed = Date(timeIntervalSince1970: epoch)
        return { fixed }
    }
}
