import FeedaggTesting
import FeedSearch
import Foundation
import Testing

// `feedagg show --query` and `--view` through the real binary, on both store engines: every
// construct of the query language selects what the reference evaluator selects, in every output
// format, paged by cursor or by number; malformed queries and unknown views are usage errors.

@Suite("show --query and --view through the binary")
struct SearchCLITests {
    /// One query of each construct of the grammar (docs/query.md), and a few combinations.
    static let queries = [
        "swift", "swift linux", "swift*", "\"server side\"", "\"server si\"*", "title:swift", "summary:beta",
        "author:ada", "author:gr*", "feed:blog", "feed:news swift", "source:http", "CAFE", "-swift", "beta -rust",
        "rust OR go", "security (cve OR scale)", "x OR (title:rust -kernel)", "after:2026-11-18", "before:2026-11-18",
        "newer:1000w", "older:1000w", "2026", "hummingbird", "nothing-matches-this",
    ]

    @Test("every construct selects what the reference evaluator selects, in stream order", arguments: CLIEngine.allCases)
    func constructs(engine: CLIEngine) async throws {
        try await SearchScene.with(engine) { scene in
            #expect(try await scene.showAll([]).count > 0)
            for text in Self.queries {
                let document = try await scene.showAll(["--query", text])
                let expected = SearchCorpus.expected(try SearchQuery(parsing: text))
                #expect(shownEntries(document).map(\.title) == expected.map(\.title), "query \(text)")
                #expect(document["total_items"] as? Int == expected.count, "total_items of \(text)")
            }
            // The reference itself is not trivial: these queries select some but not all.
            #expect(SearchCorpus.expected(try SearchQuery(parsing: "swift")).count == 5)
            #expect(SearchCorpus.expected(try SearchQuery(parsing: "-swift")).count == 11)
        }
    }

    @Test("paged by cursor, by number and with --all, in every format: the same entries")
    func pagedInEveryFormat() async throws {
        try await SearchScene.with(.sqlite) { scene in
            let expected = SearchCorpus.expected(try SearchQuery(parsing: "swift OR rust")).map(\.title)
            #expect(expected.count == 8, "\(expected)")

            // --after: the next_cursor chain, two at a time.
            var titles: [String] = []
            var arguments = ["show", "--query", "swift OR rust", "--format", "json", "--per-page", "2"]
            for _ in 0..<10 {
                let output = try await scene.run(arguments)
                try #require(output.status == 0, "\(output.summary)")
                let page = try searchJSON(output.stdout)
                #expect(page["total_items"] as? Int == 8)
                titles += searchItems(page).compactMap { $0["title"] as? String }
                guard let cursor = page["next_cursor"] as? String, !searchItems(page).isEmpty else { break }
                arguments = ["show", "--query", "swift OR rust", "--format", "json", "--per-page", "2", "--after", cursor]
            }
            #expect(titles == expected)

            // --page: the third page of two.
            let third = try await scene.run(["show", "--query=swift OR rust", "--format", "json", "--per-page", "2", "--page", "3"])
            #expect(searchItems(try searchJSON(third.stdout)).compactMap { $0["title"] as? String } == Array(expected[4..<6]))

            // Every format, --all.
            let jsonl = try await scene.run(["show", "--query", "swift OR rust", "--format", "jsonl", "--all", "--per-page", "4"])
            #expect(try jsonl.stdout.split(separator: "\n").map { try searchJSON(String($0))["title"] as? String } == expected)
            let atom = try await scene.run(["show", "--query", "swift OR rust", "--format", "atom", "--all", "--per-page", "4"])
            #expect(atom.stdout.components(separatedBy: "<entry>").count - 1 == 8, "\(atom.stdout)")
            let feed = try await scene.run(["show", "--query", "swift OR rust", "--format", "jsonfeed", "--all"])
            #expect((try searchJSON(feed.stdout)["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == expected)
            let table = try await scene.run(["show", "--query", "swift OR rust", "--all", "--per-page", "4"])
            let rows = table.stdout.split(separator: "\n").dropFirst().filter { !$0.isEmpty }
            #expect(rows.count == 8 && zip(rows, expected).allSatisfy { $0.0.contains($0.1) }, "\(table.stdout)")

            // A leading '-' is the query's, not an option; the table's next command keeps the query.
            let negated = try await scene.run(["show", "--query", "-swift", "--format", "json", "--all"])
            #expect(searchItems(try searchJSON(negated.stdout)).count == 11, "\(negated.summary)")
            let first = try await scene.run(["show", "--query", "swift OR rust", "--per-page", "2"])
            // (Not on a terminal, the table's footer goes to standard error.)
            let next = first.stderr.split(separator: "\n").first { $0.hasPrefix("next: ") } ?? ""
            #expect(next.contains("show --after ") && next.contains("'--query=swift OR rust'"), "\(first.stderr)")
            let cursor = try #require(next.split(separator: " ").dropFirst(4).first.map(String.init))
            let second = try await scene.run(["show", "--after", cursor, "--query=swift OR rust", "--per-page", "2", "--format", "json"])
            #expect(searchItems(try searchJSON(second.stdout)).compactMap { $0["title"] as? String } == Array(expected[2..<4]))
        }
    }

    @Test("a malformed query is a usage error with its column and a caret; nothing is read")
    func malformedQuery() async throws {
        try await SearchScene.with(.sqlite) { scene in
            let output = try await scene.run(["show", "--query", "swift (rust"])
            #expect(output.status == 2)
            #expect(output.stdout.isEmpty)
            #expect(output.stderr == "query:1:7: error: '(' is never closed\n    swift (rust\n          ^\n", "\(output.stderr)")
            let field = try await scene.run(["show", "--query", "titel:swift", "--format", "json"])
            #expect(field.status == 2 && field.stderr.hasPrefix("query:1:1: error: unknown field 'titel:'; did you mean 'title:'?"), "\(field.stderr)")
        }
    }

    static let views = """
        views:
          - name: rust
            query: "rust -kernel"
          - {name: ada, query: "author:ada"}

        """

    @Test("--view prints a saved view; with --query both must match; an unknown view is a usage error", arguments: CLIEngine.allCases)
    func views(engine: CLIEngine) async throws {
        try await SearchScene.with(engine, top: Self.views) { scene in
            let rust = try await scene.showAll(["--view", "rust"])
            #expect(shownEntries(rust).map(\.title) == SearchCorpus.expected(try SearchQuery(parsing: "rust -kernel")).map(\.title))
            #expect(shownEntries(rust).count == 3)
            let both = try await scene.showAll(["--view", "ada", "--query", "swift"])
            #expect(shownEntries(both).map(\.title) == ["Swift 6.1 released", "Server-side Swift on Linux"])

            let unknown = try await scene.run(["show", "--view", "rusty"])
            #expect(unknown.status == 2)
            #expect(unknown.stderr.contains("error: no view named 'rusty' in \(scene.config.path)"), "\(unknown.stderr)")
            #expect(unknown.stderr.contains("help: did you mean 'rust'?") && unknown.stderr.contains("views: rust, ada"), "\(unknown.stderr)")
            try scene.rewrite()
            let none = try await scene.run(["show", "--view", "rust"])
            #expect(none.status == 2 && none.stderr.contains("declares no views"), "\(none.stderr)")
        }
    }

    @Test("validate checks every query: a bad one is an error at its column in feeds.yaml; good ones are counted")
    func validate() async throws {
        try await SearchScene.with(.sqlite, top: Self.views, extra: ["news": "    filters:\n      - drop: beta\n"]) { scene in
            let good = try await TestBinary.runFeedagg(["validate", "--config", scene.config.path])
            #expect(good.status == 0, "\(good.summary)")
            #expect(good.stdout.contains("  news (http): ") && good.stdout.contains(", 1 filter rule\n"), "\(good.stdout)")
            #expect(good.stdout.hasSuffix("  views: rust, ada\n"), "\(good.stdout)")

            try scene.rewrite(top: "views:\n  - name: bad\n    query: rust OR\n")
            let bad = try await TestBinary.runFeedagg(["validate", "--config", scene.config.path])
            #expect(bad.status == 2)
            #expect(
                bad.stderr == """
                    \(scene.config.path):3:17: error: OR needs a term after it
                          query: rust OR
                                      ^
                      note: the query of view 'bad'

                    """, "\(bad.stderr)")
        }
    }
}
