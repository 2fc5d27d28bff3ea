/// One parameter a source type accepts in feeds.yaml.
public struct ParameterSpec: Sendable {
    /// The value's type, checked when the configuration is loaded.
    public enum Kind: String, Sendable {
        /// Any scalar, as text.
        case string
        /// A whole number.
        case integer
        /// `true`/`false` (also `yes`/`no`, `on`/`off`).
        case boolean
        /// An absolute http(s) URL.
        case url
        /// A credential: written as `${VARIABLE}` or read from a `_file`, never printed.
        case secret
        /// An ISO 8601 date.
        case date
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
    /// One line for `feedagg sources` (say what the value means; the default goes in ``default``).
    public var summary: String
    /// The value (as it would be written in feeds.yaml) a feed that does not give the key gets:
    /// the configuration loader applies it, so a source reads it as if written; `feedagg sources`
    /// shows it (`(default 30)`), and `FeedSourceConformance` (in FeedaggTesting) checks that a
    /// source built without the key behaves as with it. `nil`: no default (absent means absent).
    public var `default`: String?

    /// Creates a parameter description.
    ///
    /// - Parameters:
    ///   - name: the key in feeds.yaml.
    ///   - kind: the type its value must have.
    ///   - required: whether every feed of the type must give it.
    ///   - default: the value an absent key takes, written as in feeds.yaml (e.g. `"30"`).
    ///   - summary: one line saying what it means.
    public init(_ name: String, _ kind: Kind, required: Bool = false, default: String? = nil, _ summary: String) {
        self.name = name
        self.kind = kind
        self.required = required
        self.default = `default`
        self.summary = summary
    }
}
