/// What `feedagg sources` and the configuration loader know about a source type.
public struct SourceDescriptor: Sendable {
    /// The `source:` value in feeds.yaml, e.g. `github.repos`.
    public var typeName: String
    /// One line saying what the feed lists.
    public var summary: String
    /// The source's own parameters (the common ones are in ``FeedContext/commonParameters``).
    public var parameters: [ParameterSpec]
    /// How it pages, in words (e.g. `Link header (rel="next", rel="last")`).
    public var pagination: String
    /// The API root used when a feed gives no `base_url`.
    public var defaultBaseURL: String
    /// The page size used when a feed gives no `per_page`.
    public var defaultPageSize: Int
    /// The largest page size the API accepts.
    public var maxPageSize: Int
    /// What keys beyond ``parameters`` mean, when the type accepts any others (the `http` source
    /// takes them as URI template variables); `nil` (the default) makes an unknown key a
    /// configuration error with a did-you-mean.
    public var additionalParameters: String?
    /// The secret parameter that authenticates the feed (`token`), if any: `feeds` and `validate`
    /// say where its value comes from, and an absent one may come from the environment.
    public var credential: CredentialSpec?
    /// The feeds.yaml lines `feedagg init` writes for this type, below its `# type: summary`
    /// comment: an entry of the `feeds:` list indented by two spaces (`  - name: …`, `    source: …`),
    /// valid as written and working without anything the user must create first. Lines starting
    /// with `#` (after the indentation) are comments; an example made only of comments is written
    /// commented out (a type that needs something of the user's, e.g. a plugin). `nil`: `init`
    /// writes a commented skeleton of the required parameters.
    public var example: [String]?

    /// Whether ``example`` declares a feed as written (it has an uncommented `- name:` line).
    public var exampleDeclaresFeed: Bool {
        example?.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("- name:") } ?? false
    }

    /// Creates a descriptor.
    public init(
        typeName: String, summary: String, parameters: [ParameterSpec], pagination: String,
        defaultBaseURL: String, defaultPageSize: Int, maxPageSize: Int, additionalParameters: String? = nil,
        credential: CredentialSpec? = nil, example: [String]? = nil
    ) {
        self.credential = credential
        self.example = example
        self.additionalParameters = additionalParameters
        self.typeName = typeName
        self.summary = summary
        self.parameters = parameters
        self.pagination = pagination
        self.defaultBaseURL = defaultBaseURL
        self.defaultPageSize = defaultPageSize
        self.maxPageSize = maxPageSize
    }
}
