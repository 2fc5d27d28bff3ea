public import FeedCore
public import FeedSearch

/// One `- name: …` entry of the `feeds:` list, checked against its source type.
public struct FeedDeclaration: Sendable {
    /// The unique feed name.
    public var name: String
    /// The `source:` type name, one of the descriptors the loader was given.
    public var sourceType: String
    /// The feed's own mapping.
    public var node: ConfigNode
    /// Where the list item starts (its `-`).
    public var location: SourceLocation
    /// Typed access to the feed's keys over the defaults that apply to its source type.
    public var parameters: FeedParameters
    /// Where its credential comes from (`nil` when its source type takes none).
    public var credential: CredentialUse?
    /// Its own filter rules (`filters:`), in file order; `settings: filters:` apply as well
    /// (``FeedsDocument/filters``).
    public var filters: [FilterRule] = []

    /// Its own `interval` in seconds (the feed's or `defaults:`'s), `nil` when it gives none
    /// (then `settings.interval` applies). The loader has checked it.
    public var interval: Double? {
        parameters.value("interval").flatMap { try? PullInterval.seconds($0) }
    }

    /// Creates a declaration.
    public init(
        name: String, sourceType: String, node: ConfigNode, location: SourceLocation, parameters: FeedParameters,
        credential: CredentialUse? = nil
    ) {
        self.credential = credential
        self.name = name
        self.sourceType = sourceType
        self.node = node
        self.location = location
        self.parameters = parameters
    }
}
