import FeedaggTesting
import FeedSearch
import Foundation
import Testing

// The scene of the search, view and filter-rule tests: SearchCorpus's two feeds on loopback,
// pulled by the real binary into a store of either engine, read back by `feedagg show`.

/// A pulled store of the search corpus and the configuration that declares it.
struct SearchScene {
    let api: SearchCorpus.API
    let folder: TemporaryFolder
    let config: URL
    let db: String

    /// Starts the API, writes feeds.yaml (`top` before `feeds:`, each feed's `extra` lines), pulls
    /// it with `feedagg pull` into a new store of `engine`, runs `body`, and cleans up however it ends.
    static func with(
        _ engine: CLIEngine, top: String = "", extra: [String: String] = [:], _ body: (SearchScene) async throws -> Void
    ) async throws {
        let api = try await SearchCorpus.API.start()
        let folder = try TemporaryFolder("feedagg-search")
        do {
            let config = try folder.write("feeds.yaml", SearchCorpus.feedsYAML(base: api.baseURL, top: top, extra: extra))
            let scene = SearchScene(api: api, folder: folder, config: config, db: try await engine.location(in: folder))
            let pull = try await TestBinary.runFeedagg(["pull", "--config", config.path, "--db", scene.db, "-q"])
            try #require(pull.status == 0, "\(pull.summary)")
            try await body(scene)
        } catch {
            await api.stop()
            folder.remove()
            throw error
        }
        await api.stop()
        folder.remove()
    }

    /// Rewrites feeds.yaml (same feeds, new `top` and `extra`).
    func rewrite(top: String = "", extra: [String: String] = [:]) throws {
        _ = try folder.write("feeds.yaml", SearchCorpus.feedsYAML(base: api.baseURL, top: top, extra: extra))
    }

    /// `feedagg ARGUMENTS --config … --db …`.
    func run(_ arguments: [String]) async throws -> ProcessOutput {
        try await TestBinary.runFeedagg(arguments + ["--config", config.path, "--db", db])
    }

    /// `feedagg show ARGUMENTS --format json --all`, required to succeed: the JSON document.
    func showAll(_ arguments: [String]) async throws -> [String: Any] {
        let output = try await run(["show", "--format", "json", "--all"] + arguments)
        try #require(output.status == 0, "\(output.summary)")
        return try searchJSON(output.stdout)
    }
}

/// The JSON object of `text`.
func searchJSON(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text.prefix(400))")
}

/// The items of a `show --format json` document.
func searchItems(_ document: [String: Any]) -> [[String: Any]] {
    document["items"] as? [[String: Any]] ?? []
}

/// The items of a `show --format json` document as ``SearchCorpus/Expected`` values.
func shownEntries(_ document: [String: Any]) -> [SearchCorpus.Expected] {
    searchItems(document).map {
        SearchCorpus.Expected(
            title: $0["title"] as? String ?? "?", feeds: $0["feeds"] as? [String] ?? [], tags: $0["tags"] as? [String] ?? ["?"])
    }
}
