import Foundation

/// A node of a parsed configuration document, with where it came from.
public struct ConfigNode: Sendable {
    /// A scalar, a sequence or a mapping, as YAML has them (no typing: ``FeedParameters`` types them).
    public enum Value: Sendable {
        /// A scalar as written (after environment interpolation); `plain` is false when it was quoted.
        case scalar(String, plain: Bool)
        /// An ordered mapping of scalar keys to nodes.
        case mapping([(key: ConfigNode, value: ConfigNode)])
        /// A sequence of nodes.
        case sequence([ConfigNode])
    }

    /// The scalar text, the sequence's nodes or the mapping's entries, in file order.
    public var value: Value
    /// Where the node starts.
    public var location: SourceLocation
    /// Names of environment variables that were referenced but unset (the scalar is then null).
    public var unsetVariables: [String]
    /// Names of every environment variable the scalar referenced (`${NAME}`, `${NAME:-…}`), set or not.
    public var variables: [String]

    /// Creates a node.
    public init(_ value: Value, at location: SourceLocation, unsetVariables: [String] = [], variables: [String] = []) {
        self.value = value
        self.location = location
        self.unsetVariables = unsetVariables
        self.variables = variables
    }

    /// The scalar text, if this is a scalar.
    public var scalar: String? {
        if case .scalar(let text, _) = value { return text }
        return nil
    }

    /// Whether this is a YAML null (`~`, `null`, empty plain scalar) or an unset variable.
    public var isNull: Bool {
        guard case .scalar(let text, let plain) = value else { return false }
        if !unsetVariables.isEmpty && text.isEmpty { return true }
        return plain && ["", "~", "null", "Null", "NULL"].contains(text)
    }

    /// A human name for the node's kind, for "expected X, found Y" messages.
    public var kindDescription: String {
        switch value {
        case .scalar: return isNull ? "null" : "a scalar"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }

    /// The entries of a mapping, or `nil`.
    public var entries: [(key: ConfigNode, value: ConfigNode)]? {
        if case .mapping(let entries) = value { return entries }
        return nil
    }

    /// The value under `key` in a mapping.
    public subscript(key: String) -> ConfigNode? {
        entries?.first { $0.key.scalar == key }?.value
    }
}
