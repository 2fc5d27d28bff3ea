public import Foundation

/// Where the repository, its fixtures and the shared folder beside it are, for tests.
public enum RepositoryPaths {
    /// The package root (found from this file's location).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Fixtures/`.
    public static var fixtures: URL { root.appendingPathComponent("Fixtures") }

    /// `../shared/` beside the repository (seeds, bench server, real-world recordings).
    public static var shared: URL { root.deletingLastPathComponent().appendingPathComponent("shared") }

    /// `../shared/realworld/`.
    public static var realworld: URL { shared.appendingPathComponent("realworld") }

    /// Whether tests that read `../shared/realworld` run: when it is present, and always in CI,
    /// where its absence fails them (``TestPrerequisites``); skipped otherwise.
    public static var hasRealworld: Bool {
        TestPrerequisites.runs(needing: FileManager.default.fileExists(atPath: realworld.path))
    }

    /// Why tests that read `../shared/realworld` are skipped when ``hasRealworld`` is false.
    public static let realworldUnavailableReason =
        "needs ../shared/realworld beside the project (real recorded GitHub traffic)"

    /// `../shared/bench/ghserver.py`.
    public static var benchServer: URL { shared.appendingPathComponent("bench/ghserver.py") }

    /// Whether the bench server is present and python3 can run it.
    public static var hasBenchServer: Bool { FileManager.default.fileExists(atPath: benchServer.path) }

    /// Reads a JSON file as a Foundation object.
    public static func json(_ url: URL) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url), options: [.fragmentsAllowed])
    }
}
