import Foundation

/// What a test run may skip and rewrite: locally a test whose prerequisite is missing (the bench
/// server or the recordings of `../shared`, a skip switch) is skipped with a comment; in CI
/// (`CI=true`) it runs instead, and fails with the prerequisite's own message, so a CI run can never
/// pass by skipping. The switches that rewrite expected files (`FEEDAGG_UPDATE_GOLDEN`,
/// `FEEDAGG_RECORD_FIXTURES`) are refused in CI: a CI run compares, it never rewrites.
public enum TestPrerequisites {
    /// Whether this is a CI run (`CI=true`, as GitHub Actions and feedagg's `.ci/run` set).
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Whether a test needing something that is `available` runs: always in CI (where a missing
    /// prerequisite must fail the run), else only when it is available.
    public static func runs(needing available: Bool) -> Bool { available || isCI }

    /// Whether the rewrite switch `variable` (`FEEDAGG_UPDATE_GOLDEN`, `FEEDAGG_RECORD_FIXTURES`) is
    /// set to `1`; in CI it throws instead.
    public static func rewriting(_ variable: String) throws(RewriteRefused) -> Bool {
        guard ProcessInfo.processInfo.environment[variable] == "1" else { return false }
        guard !isCI else { throw RewriteRefused(variable: variable) }
        return true
    }

    /// A rewrite switch set in a CI run.
    public struct RewriteRefused: Error, CustomStringConvertible {
        /// The switch.
        public let variable: String
        public var description: String {
            "\(variable)=1 rewrites expected files; a CI run (CI=true) only compares: unset it"
        }
    }
}
