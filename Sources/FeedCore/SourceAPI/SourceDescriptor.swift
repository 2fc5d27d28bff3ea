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

    /// Creates a descriptor.
    public init(
        typeName: String, summary: String, parameters: [ParameterSpec], pagination: String,
        defaultBaseURL: String, defaultPageSize: Int, maxPageSize: Int, additionalParameters: String? = nil,
        credential: CredentialSpec? = nil
    ) {
        self.credential = credential
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
