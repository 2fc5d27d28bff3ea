public import FeedCore
public import Foundation

/// A hand-built feeds.yaml entry with real line and column locations, for source tests that check
/// parameter errors without the YAML loader:
///
/// ```yaml
/// feeds:
///   - name: <name>
///     source: <source>
///     key: value        # one line per pair
/// ```
public struct FeedYAML: Sendable {
    /// The feed's `name:`.
    public let name: String
    /// The feed's `source:` type name.
    public let source: String
    /// The other keys, one line each, in order.
    public let pairs: [(String, String)]
    /// The text above, as the file every location points into.
    public let file: SourceFile

    /// The entry for feed `name` of type `source` with `pairs` below it.
    public init(name: String = "x", source: String, _ pairs: [(String, String)]) {
        self.name = name
        self.source = source
        self.pairs = pairs
        let lines = ["feeds:", "  - name: \(name)", "    source: \(source)"] + pairs.map { "    \($0.0): \($0.1)" }
        file = SourceFile(path: "feeds.yaml", text: lines.joined(separator: "\n") + "\n")
    }

    /// A plain scalar `text` at `line`:`column` of ``file``.
    public func scalar(_ text: String, line: Int, column: Int) -> ConfigNode {
        ConfigNode(.scalar(text, plain: true), at: SourceLocation(file: file, line: line, column: column))
    }

    /// The feed's mapping node (it starts at line 2, column 5).
    public var node: ConfigNode {
        var entries = [
            (key: scalar("name", line: 2, column: 5), value: scalar(name, line: 2, column: 11)),
            (key: scalar("source", line: 3, column: 5), value: scalar(source, line: 3, column: 13)),
        ]
        for (offset, (key, value)) in pairs.enumerated() {
            let line = 4 + offset
            entries.append((key: scalar(key, line: line, column: 5), value: scalar(value, line: line, column: 7 + key.count)))
        }
        return ConfigNode(.mapping(entries), at: SourceLocation(file: file, line: 2, column: 5))
    }

    /// The parameters a source sees for this entry (no `settings:` defaults).
    public var parameters: FeedParameters {
        FeedParameters(node: node, defaults: nil, feedName: name, sourceType: source)
    }
}

extension FeedSource {
    /// A source built from `pairs` the way the engine builds it: feed `x`, the descriptor's base
    /// URL and page size unless given.
    public static func make(_ pairs: [(String, String)], baseURL: String? = nil, pageSize: Int? = nil) throws -> Self {
        let yaml = FeedYAML(source: descriptor.typeName, pairs)
        let base = baseURL ?? descriptor.defaultBaseURL
        guard let url = URL(string: base) else { throw TestSetupError("not a URL: \(base)") }
        let context = FeedContext(name: yaml.name, baseURL: url, pageSize: pageSize ?? descriptor.defaultPageSize)
        return try Self(feed: context, parameters: yaml.parameters)
    }
}

extension FetchedPage {
    /// A page 1 with `body`, answered 200 to `url` (a string, for tests that spell URLs inline).
    public static func sample(
        _ body: Data, at url: String = "https://api.github.com/x", contentType: String? = "application/json; charset=utf-8"
    ) throws -> FetchedPage {
        guard let parsed = URL(string: url) else { throw TestSetupError("not a URL: \(url)") }
        return sample(body, url: parsed, contentType: contentType)
    }

    /// A page 1 whose body is the UTF-8 of `body` (see the `Data` variant).
    public static func sample(
        _ body: String, at url: String = "https://api.github.com/x", contentType: String? = "application/json; charset=utf-8"
    ) throws -> FetchedPage {
        try sample(Data(body.utf8), at: url, contentType: contentType)
    }
}

/// A test's own set-up is wrong (a malformed URL in the test), not the code under test.
public struct TestSetupError: Error, CustomStringConvertible {
    /// What was wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The error `body` throws, as `E`; throws ``TestSetupError`` (failing the test) when `body`
/// throws nothing, and rethrows an error of another type.
public func thrownError<E: Error>(_ type: E.Type, _ body: () throws -> Void) throws -> E {
    do {
        try body()
    } catch let error as E {
        return error
    }
    throw TestSetupError("expected \(E.self) to be thrown, nothing was")
}
