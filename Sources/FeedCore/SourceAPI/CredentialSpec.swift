/// How a source type is authenticated: which secret parameter, whether `defaults:` may give it,
/// and which environment variables supply it when a feed sets none (as `gh` reads `GITHUB_TOKEN`).
public struct CredentialSpec: Sendable, Equatable {
    /// The secret parameter, e.g. `token`.
    public var parameter: String
    /// Whether a value in `defaults:` applies to the type's feeds.
    public var inheritsDefaults: Bool
    /// Variables read, in order, when the feed (and `defaults:`) give no value; the first set and
    /// non-empty one is used.
    public var environmentVariables: [String]
    /// The API hosts an environment value is sent to: a feed whose `base_url` points elsewhere
    /// (a proxy, an enterprise server, a test server) never receives it implicitly.
    public var environmentHosts: [String]

    /// Creates a credential description.
    public init(
        parameter: String, inheritsDefaults: Bool = true, environmentVariables: [String] = [],
        environmentHosts: [String] = []
    ) {
        self.parameter = parameter
        self.inheritsDefaults = inheritsDefaults
        self.environmentVariables = environmentVariables
        self.environmentHosts = environmentHosts
    }

    /// GitHub's token: `token`, else `$GITHUB_TOKEN`, else `$GH_TOKEN`, for api.github.com.
    public static let gitHub = CredentialSpec(
        parameter: "token", environmentVariables: ["GITHUB_TOKEN", "GH_TOKEN"], environmentHosts: ["api.github.com"])
}
