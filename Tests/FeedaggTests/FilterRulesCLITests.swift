import FeedConfig
import FeedCore
import FeedaggKit
import FeedaggTesting
import FeedSearch
import Foundation
import Testing

// Filter rules (feeds.yaml `filters:` under `settings:` and per feed) through the real binary on
// both engines: what `show` prints with them, labels in every format, a change of rules taking
// effect at the next read with no request, and `feedagg filters`' preview.

@Suite("Filter rules through the binary")
struct FilterRulesCLITests {
    static let top = """
        settings:
          filters:
            - drop: "beta"
            - {tag: security, when: "security OR cve"}

        """
    static let extra = [
        "news": """
                filters:
                  - drop: "title:server"
                  - {tag: lang, when: "rust OR go"}
            """,
        "blog": """
                filters:
                  - keep: "swift* OR security OR hummingbird"
            """,
    ]

    /// The rules above, as the loader reads them.
    static func rules(base: String) throws -> FilterRules {
        try FeedsLoader.parse(
            text: SearchCorpus.feedsYAML(base: base, top: top, extra: extra), path: "feeds.yaml",
            sources: SourceRegistry.builtIn.descriptors,
            environment: [:]
        ).filters
    }

    @Test("show prints what the rules keep, labelled; editing them changes the next read without a request", arguments: CLIEngine.allCases)
    func rulesApply(engine: CLIEngine) async throws {
        try await SearchScene.with(engine, top: Self.top, extra: Self.extra) { scene in
            let requestsAfterPull = scene.api.requests
            let rules = try Self.rules(base: scene.api.baseURL)
            let expected = SearchCorpus.expected(rules: rules)
            let shown = shownEntries(try await scene.showAll([]))
            #expect(shown == expected)
            // The reference agrees with what the rules say, so the comparison above means something.
            #expect(expected.count == 10, "\(expected)")
            #expect(!expected.contains { $0.title.contains("beta") || $0.title.hasPrefix("Knitting") })
            #expect(expected.first { $0.title == "Server-side Swift on Linux" }?.feeds == ["blog"], "news drops its copy, blog keeps its own")
            #expect(expected.first { $0.title == "Security advisory CVE-2026-1234" }?.tags == ["security"])
            #expect(expected.first { $0.title == "Weekly links" }?.tags == ["lang"])

            // A search runs over what the rules leave.
            let searched = shownEntries(try await scene.showAll(["--query", "swift"]))
            #expect(searched == SearchCorpus.expected(try SearchQuery(parsing: "swift"), rules: rules))

            // Labels: the table's title, Atom categories, JSON Feed tags.
            let table = try await scene.run(["show", "--per-page", "50"])
            #expect(table.stdout.contains("[security] Security advisory CVE-2026-1234"), "\(table.stdout)")
            #expect(table.stdout.contains("[lang] Weekly links"), "\(table.stdout)")
            let atom = try await scene.run(["show", "--format", "atom", "--per-page", "50"])
            #expect(atom.stdout.components(separatedBy: "<category term=\"security\"/>").count - 1 == 2, "\(atom.stdout)")
            let jsonFeed = try searchJSON(try await scene.run(["show", "--format", "jsonfeed", "--per-page", "50"]).stdout)
            let advisory = (jsonFeed["items"] as? [[String: Any]] ?? []).first { ($0["title"] as? String)?.hasPrefix("Security advisory") == true }
            #expect(advisory?["tags"] as? [String] == ["news", "security"], "\(advisory ?? [:])")

            // The rules change: the next read shows the new result, and nothing was fetched for it.
            try scene.rewrite(top: "settings:\n  filters:\n    - keep: \"author:ken\"\n")
            let changed = shownEntries(try await scene.showAll([]))
            #expect(changed.map(\.title) == ["Security advisory CVE-2026-1234", "Security at scale", "Go generics one year on"])
            try scene.rewrite()
            let all = shownEntries(try await scene.showAll([]))
            #expect(all == SearchCorpus.expected(), "no rules: every item is back (rules never delete)")
            #expect(scene.api.requests == requestsAfterPull, "reading with other rules made requests")
        }
    }

    @Test("the page pull prints applies the rules too")
    func pullPage() async throws {
        try await SearchScene.with(.sqlite, top: Self.top, extra: Self.extra) { scene in
            let output = try await scene.run(["pull", "--format", "json", "--per-page", "50", "-q"])
            #expect(output.status == 0, "\(output.summary)")
            #expect(shownEntries(try searchJSON(output.stdout)) == SearchCorpus.expected(rules: try Self.rules(base: scene.api.baseURL)))
        }
    }

    @Test("feedagg filters: each rule's matches and first titles, the stream with and without the rules")
    func preview() async throws {
        try await SearchScene.with(.sqlite, top: Self.top, extra: Self.extra) { scene in
            let json = try await scene.run(["filters", "--format", "json"])
            #expect(json.status == 0, "\(json.summary)")
            let expected = """
                {"rules":[\
                {"feed":null,"action":"drop","tag":null,"query":"beta","matches":3,"examples":["Rust beta channel notes","Swift beta 7 toolchain","A beta of the blog engine"]},\
                {"feed":null,"action":"tag","tag":"security","query":"security OR cve","matches":2,"examples":["Security advisory CVE-2026-1234","Security at scale"]},\
                {"feed":"news","action":"drop","tag":null,"query":"title:server","matches":1,"examples":["Server-side Swift on Linux"]},\
                {"feed":"news","action":"tag","tag":"lang","query":"rust OR go","matches":4,"examples":["Rust beta channel notes","Weekly links","Rust 2.0 roadmap"]},\
                {"feed":"blog","action":"keep","tag":null,"query":"swift* OR security OR hummingbird","matches":4,"examples":["Swifts and swallows","Server-side Swift on Linux","Security at scale"]}\
                ],"shown_with_rules":10,"shown_without_rules":16}

                """
            #expect(json.stdout == expected)

            let text = try await scene.run(["filters"])
            #expect(text.status == 0, "\(text.summary)")
            #expect(
                text.stdout == """
                    every feed (settings):
                      1. drop beta  (drops 3 stored items it matches)
                           Rust beta channel notes
                           Swift beta 7 toolchain
                           A beta of the blog engine
                      2. tag security when security OR cve  (labels 2 stored items it matches)
                           Security advisory CVE-2026-1234
                           Security at scale

                    feed news:
                      3. drop title:server  (drops 1 stored item it matches)
                           Server-side Swift on Linux
                      4. tag lang when rust OR go  (labels 4 stored items it matches)
                           Rust beta channel notes
                           Weekly links
                           Rust 2.0 roadmap

                    feed blog:
                      5. keep swift* OR security OR hummingbird  (keeps 4 stored items it matches)
                           Swifts and swallows
                           Server-side Swift on Linux
                           Security at scale

                    The stream shows 10 of 16 entries with these rules (6 hidden); nothing is deleted.

                    """)
            let unchanged = try await scene.run(["filters"])
            #expect(unchanged.stdout == text.stdout, "a preview changes nothing")

            try scene.rewrite()
            let none = try await scene.run(["filters"])
            #expect(none.stdout.hasPrefix("No filter rules") && none.stdout.contains("all 16 entries"), "\(none.stdout)")
        }
    }
}
