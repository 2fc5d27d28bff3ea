/// One parameter a source type accepts in feeds.yaml.
public struct ParameterSpec: Sendable {
    /// The value's type, checked when the configuration is loaded.
    public enum Kind: String, Sendable {
        case string, integer, boolean, url, secret, date
        /// A nested mapping (e.g. a declarative source's `pagination:` or `fields:`).
        case mapping
        /// A sequence of strings (e.g. an exec plugin's `command: [path, argument…]`).
        case list
    }
    /// The key in feeds.yaml.
    public var name: String
    /// The type the value must have; the loader rejects anything else with a located error.
    public var kind: Kind
    /// Whether a feed of this type must give it.
    public var required: Bool
    /// One line for `feedagg sources`.
    public var summary: String

    /// Creates a parameter description.
    public init(_ name: String, _ kind: Kind, required: Bool = false, _ summary: String) {
        self.name = name
        self.kind = kind
        self.required = required
        self.summary = summary
    }
}
