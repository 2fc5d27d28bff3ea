public import Foundation
import Synchronization

/// A feed's parameters from feeds.yaml (its own keys over the `defaults:` block), read with types.
///
/// Every accessor throws a ``ConfigError`` located at the offending value, so a source never
/// formats configuration errors itself.
public struct FeedParameters: Sendable {
    /// The feed's mapping node.
    public let node: ConfigNode
    /// The `defaults:` mapping, if any.
    public let defaults: ConfigNode?
    /// The feed's name, for messages.
    public let feedName: String
    /// The source type, for messages.
    public let sourceType: String
    /// Collects every key read, when given (conformance checks compare it with the declared parameters).
    public let readLog: ParameterReadLog?

    /// Creates parameters over a feed mapping and optional defaults.
    ///
    /// - Parameters:
    ///   - node: the feed's mapping.
    ///   - defaults: the `defaults:` mapping, whose keys apply when the feed lacks them.
    ///   - feedName: the feed's name, for messages.
    ///   - sourceType: the source type, for messages.
    ///   - readLog: when given, every key looked up through these parameters is added to it.
    public init(
        node: ConfigNode, defaults: ConfigNode?, feedName: String, sourceType: String,
        readLog: ParameterReadLog? = nil
    ) {
        self.node = node
        self.defaults = defaults
        self.feedName = feedName
        self.sourceType = sourceType
        self.readLog = readLog
    }

    /// The raw node for `key`: the feed's own, else the default; `nil` when absent or null.
    public func value(_ key: String) -> ConfigNode? {
        readLog?.record(key)
        if let own = node[key] { return own.isNull ? nil : own }
        if let inherited = defaults?[key] { return inherited.isNull ? nil : inherited }
        return nil
    }

    private func scalar(_ key: String, expected: String) throws -> (String, ConfigNode)? {
        guard let node = value(key) else { return nil }
        guard let text = node.scalar else {
            throw ConfigError(
                "'\(key)' must be \(expected), found \(node.kindDescription)", at: node.location)
        }
        return (text, node)
    }

    private func missing(_ key: String) -> ConfigError {
        ConfigError(
            "feed '\(feedName)' (\(sourceType)) is missing required parameter '\(key)'",
            at: node.location)
    }

    /// A string, or `nil` when absent.
    public func string(_ key: String) throws -> String? {
        try scalar(key, expected: "a string")?.0
    }

    /// A string that must be present and non-empty.
    public func requiredString(_ key: String) throws -> String {
        guard let text = try string(key) else { throw missing(key) }
        guard !text.isEmpty else {
            throw ConfigError("'\(key)' must not be empty", at: value(key)?.location ?? node.location)
        }
        return text
    }

    /// An integer within `range`, or `nil` when absent.
    public func integer(_ key: String, in range: ClosedRange<Int> = Int.min...Int.max) throws -> Int? {
        guard let (text, node) = try scalar(key, expected: "an integer") else { return nil }
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigError("'\(key)' must be an integer, found '\(text)'", at: node.location)
        }
        guard range.contains(number) else {
            throw ConfigError(
                "'\(key)' must be between \(range.lowerBound) and \(range.upperBound), found \(number)",
                at: node.location)
        }
        return number
    }

    /// A boolean (`true`/`false`/`yes`/`no`), or `nil` when absent.
    public func boolean(_ key: String) throws -> Bool? {
        guard let (text, node) = try scalar(key, expected: "a boolean") else { return nil }
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw ConfigError("'\(key)' must be true or false, found '\(text)'", at: node.location)
        }
    }

    /// An absolute http(s) URL, or `nil` when absent.
    public func url(_ key: String) throws -> URL? {
        guard let (text, node) = try scalar(key, expected: "a URL") else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else {
            throw ConfigError("'\(key)' must be an absolute http(s) URL, found '\(text)'", at: node.location)
        }
        return url
    }

    /// A mapping node, or `nil` when absent.
    public func mapping(_ key: String) throws -> ConfigNode? {
        guard let node = value(key) else { return nil }
        guard node.entries != nil else {
            throw ConfigError("'\(key)' must be a mapping, found \(node.kindDescription)", at: node.location)
        }
        return node
    }

    /// A secret (token, key), or `nil` when absent or its environment variable is unset.
    public func secret(_ key: String) throws -> Secret? {
        guard let (text, _) = try scalar(key, expected: "a string") else { return nil }
        return text.isEmpty ? nil : Secret(text)
    }

    /// An ISO 8601 timestamp, or `nil` when absent.
    public func date(_ key: String) throws -> Date? {
        guard let (text, node) = try scalar(key, expected: "an ISO 8601 date") else { return nil }
        guard let date = ISO8601.date(from: text) else {
            throw ConfigError(
                "'\(key)' must be an ISO 8601 date like 2024-01-31T00:00:00Z, found '\(text)'", at: node.location)
        }
        return date
    }
}

/// The keys a source read from its ``FeedParameters``, in first-read order.
public final class ParameterReadLog: Sendable {
    private let state = Mutex<[String]>([])

    /// A log that has recorded no key yet.
    public init() {}

    /// Adds `key` (once).
    public func record(_ key: String) {
        state.withLock { keys in
            if !keys.contains(key) { keys.append(key) }
        }
    }

    /// Every key read so far.
    public var keys: [String] { state.withLock { $0 } }
}
