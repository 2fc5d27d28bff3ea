public import Foundation

/// `feed.json`, written by `feedagg record` beside the exchanges it records: the feed they were
/// recorded from (its name, source type and scalar parameters, `per_page` included; never a
/// secret). A source's tests read it instead of hard-coding the feed, so re-recording with other
/// parameters needs no test edit. ``FixtureStore/load(directory:)`` skips it.
public struct FixtureFeedFile: Sendable, Equatable {
    /// The file's name in a fixture folder.
    public static let fileName = "feed.json"

    /// The feed's `name:`.
    public var name: String
    /// The feed's `source:`.
    public var source: String
    /// Its other keys as written in feeds.yaml (scalars only; secrets and `*_file` keys left out).
    public var parameters: [String: String]

    /// Creates a feed description.
    public init(name: String, source: String, parameters: [String: String]) {
        self.name = name
        self.source = source
        self.parameters = parameters
    }

    /// Writes `directory/feed.json` (sorted keys, pretty-printed).
    public func write(to directory: URL) throws {
        let object: [String: Any] = ["name": name, "source": source, "parameters": parameters]
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let data = try JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            try (data + Data("\n".utf8)).write(to: directory.appendingPathComponent(Self.fileName), options: .atomic)
        } catch {
            throw FixtureError(
                path: directory.appendingPathComponent(Self.fileName).path,
                message: "cannot write the recorded feed: \(error.localizedDescription)")
        }
    }

    /// Reads `directory/feed.json`.
    public static func read(directory: String) throws -> FixtureFeedFile {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(fileName).path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FixtureError(path: path, message: "missing: record the fixture with `feedagg record`, which writes it")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let name = object["name"] as? String, let source = object["source"] as? String,
            let parameters = object["parameters"] as? [String: Any]
        else {
            throw FixtureError(path: path, message: "expected {\"name\", \"source\", \"parameters\": {key: value}}")
        }
        return FixtureFeedFile(
            name: name, source: source,
            parameters: parameters.mapValues { ($0 as? String) ?? ($0 as? NSNumber)?.stringValue ?? "\($0)" })
    }
}
