import FeedConfig
import FeedCore
import FeedReplay
import Foundation

extension Aggregator {
    /// Writes `feed.json` (``FixtureFeedFile``) into `directory`: the name, source type and scalar
    /// parameters of `feed` in feeds.yaml, with the `defaults:` it inherits and its declared
    /// defaults (so `per_page` is there when given), secrets and `*_file` keys left out. What
    /// `feedagg record` writes beside the exchanges, for the source's tests to read.
    public func writeRecordedFeed(configPath: String, feed: String, into directory: String) throws {
        let (document, _) = try FeedsLoader.loadCollectingErrors(
            path: configPath, sources: registry.descriptors, environment: environment)
        guard let declaration = document.feeds.first(where: { $0.name == feed }) else {
            throw ConfigError("no feed named '\(feed)' in \(configPath)", at: nil)
        }
        let secrets = Set(
            (registry.type(named: declaration.sourceType)?.descriptor.parameters ?? []).filter { $0.kind == .secret }.map(\.name))
        var parameters: [String: String] = [:]
        let own = declaration.node.entries ?? []
        let inherited = declaration.parameters.defaults?.entries ?? []
        for (key, value) in own + inherited {
            guard let name = key.scalar, name != "name", name != "source", !secrets.contains(name), !name.hasSuffix("_file"),
                parameters[name] == nil, let text = value.scalar, !value.isNull
            else { continue }
            parameters[name] = text
        }
        try FixtureFeedFile(name: declaration.name, source: declaration.sourceType, parameters: parameters)
            .write(to: URL(fileURLWithPath: directory))
    }
}
