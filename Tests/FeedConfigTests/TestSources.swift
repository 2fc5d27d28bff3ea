import FeedCore
import Testing

@testable import FeedConfig

/// Descriptors mirroring the built-in source types, so these tests do not depend on them.
enum TestSources {
    static let repos = SourceDescriptor(
        typeName: "github.repos", summary: "repositories of an organisation or user",
        parameters: [
            ParameterSpec("org", .string, "organisation login"),
            ParameterSpec("user", .string, "user login"),
            ParameterSpec("token", .secret, "GitHub token"),
            ParameterSpec("type", .string, "all, public, private, forks, sources, member"),
        ],
        pagination: "Link header", defaultBaseURL: "https://api.github.com", defaultPageSize: 30,
        maxPageSize: 100)

    static let members = SourceDescriptor(
        typeName: "github.members", summary: "public members of an organisation",
        parameters: [
            ParameterSpec("org", .string, required: true, "organisation login"),
            ParameterSpec("token", .secret, "GitHub token"),
        ],
        pagination: "Link header", defaultBaseURL: "https://api.github.com", defaultPageSize: 30,
        maxPageSize: 100)

    static let gists = SourceDescriptor(
        typeName: "github.gists", summary: "public gists, or a user's gists",
        parameters: [
            ParameterSpec("user", .string, "user login (all public gists when absent)"),
            ParameterSpec("since", .date, "only gists updated at or after this time"),
            ParameterSpec("token", .secret, "GitHub token"),
        ],
        pagination: "Link header", defaultBaseURL: "https://api.github.com", defaultPageSize: 30,
        maxPageSize: 100)

    static let photos = SourceDescriptor(
        typeName: "photos.500px", summary: "500px photo streams",
        parameters: [
            ParameterSpec("feature", .string, "popular, upcoming, editors, fresh_today, …"),
            ParameterSpec("consumer_key", .secret, "500px consumer key"),
            ParameterSpec("category", .string, "only this category"),
        ],
        pagination: "page number (total_pages in body)", defaultBaseURL: "https://api.500px.com",
        defaultPageSize: 20, maxPageSize: 100)

    static let all = [repos, members, gists, photos]
}

/// Parses `text` as feeds.yaml with the test descriptors and `environment`.
func load(_ text: String, environment: [String: String] = [:]) throws -> FeedsDocument {
    try FeedsLoader.parse(text: text, path: "feeds.yaml", sources: TestSources.all, environment: environment)
}

/// The full rendered error for `text`, or a marker when it parses.
func renderedError(_ text: String, environment: [String: String] = [:]) -> String {
    do {
        _ = try load(text, environment: environment)
        return "<no error>"
    } catch {
        return String(describing: error)
    }
}
