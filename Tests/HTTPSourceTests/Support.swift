import FeedConfig
import FeedCore
import FeedaggKit
import FeedaggTesting
import Foundation
import HTTPSource
import Testing

/// Helpers shared by the HTTPSource suites.
enum Declared {
    /// Loads `yaml` (as `feeds.yaml`) and builds every feed with the built-in registry.
    static func feeds(_ yaml: String, environment: [String: String] = [:]) throws -> [Feed] {
        let registry = SourceRegistry.builtIn
        let document = try FeedsLoader.parse(
            text: yaml, path: "feeds.yaml", sources: registry.descriptors, environment: environment)
        return try document.feeds.map {
            try registry.makeFeed(name: $0.name, sourceType: $0.sourceType, parameters: $0.parameters)
        }
    }

    /// The configuration error `yaml` causes, or a recorded issue when it loads.
    static func error(_ yaml: String) -> ConfigError? {
        do {
            _ = try feeds(yaml)
            Issue.record("the configuration loaded without error")
            return nil
        } catch let error as ConfigError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    /// The only feed's source of `yaml`, as an `HTTPSource`.
    static func source(_ yaml: String) throws -> HTTPSource {
        let feed = try #require(try feeds(yaml).first)
        return try #require(feed.source as? HTTPSource)
    }

    /// A page with a JSON `body` at `url`.
    static func page(_ body: String, url: String = "https://api.test/x", number: Int = 1) -> FetchedPage {
        .sample(body, url: URL(string: url)!, number: number)
    }

    /// Writes `yaml` to a temporary feeds.yaml and pulls it through the aggregator, quietly.
    static func pull(_ yaml: String, pageConcurrency: Int? = nil) async throws -> PullReport {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feedagg-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("feeds.yaml")
        try Data(yaml.utf8).write(to: config)
        var settings = PullSettings(configPath: config.path)
        settings.store = .temporary
        settings.retainItems = true
        settings.quiet = true
        return try await Aggregator(environment: [:]).pull(settings)
    }

    /// The result of `feed` in `report`.
    static func result(_ report: PullReport, _ feed: String) throws -> FeedResult {
        let result = try #require(report.results.first { $0.feed == feed }, "no result for feed \(feed)")
        #expect(result.error == nil, "\(feed): \(result.error.map(String.init(describing:)) ?? "")")
        return result
    }
}
