import FeedCore
import Testing

@testable import FeedConfig

/// `ParameterSpec.default`: the loader applies it where neither the feed nor `defaults:` gives the key.
@Suite("Declared parameter defaults")
struct ParameterDefaultTests {
    static let paged = SourceDescriptor(
        typeName: "paged.items", summary: "items",
        parameters: [
            ParameterSpec("feature", .string, default: "popular", "stream"),
            ParameterSpec("timeout", .integer, default: "30", "seconds"),
        ],
        pagination: "Link header", defaultBaseURL: "https://api.example.com", defaultPageSize: 30, maxPageSize: 100)

    static func load(_ text: String) throws -> FeedsDocument {
        try FeedsLoader.parse(text: text, path: "feeds.yaml", sources: [paged], environment: [:])
    }

    @Test("an absent key reads as its declared default; the feed's own value and defaults: win")
    func appliesDefault() throws {
        let document = try Self.load(
            """
            defaults:
              timeout: 5
            feeds:
              - name: a
                source: paged.items
              - name: b
                source: paged.items
                feature: editors
                timeout: 9
            """)
        let feeds = Dictionary(uniqueKeysWithValues: document.feeds.map { ($0.name, $0.parameters) })
        #expect(try feeds["a"]?.string("feature") == "popular")
        #expect(try feeds["a"]?.integer("timeout") == 5)
        #expect(try feeds["b"]?.string("feature") == "editors")
        #expect(try feeds["b"]?.integer("timeout") == 9)
    }
}
