import FeedCore
import FeedSearch
import Testing

@testable import FeedConfig

/// feeds.yaml's saved views (`views:`) and filter rules (`filters:` under `settings:` and per
/// feed): what loads, and every rejection with its exact, located message.
@Suite("Views and filter rules in feeds.yaml")
struct QueryConfigTests {
    static let feeds = """
        feeds:
          - name: swift-repos
            source: github.repos
            org: swiftlang
          - name: gists
            source: github.gists

        """

    @Test("views, global rules and a feed's own rules load as parsed queries, in file order")
    func loads() throws {
        let document = try load(
            """
            settings:
              filters:
                - drop: "beta OR alpha"
                - {tag: security, when: "cve OR security"}
            views:
              - name: rust
                query: rust -title:beta
              - {name: new.swift_things, query: 'title:swift newer:7d'}
            feeds:
              - name: swift-repos
                source: github.repos
                org: swiftlang
                filters:
                  - keep: "title:swift*"
              - name: gists
                source: github.gists

            """)
        #expect(document.views.map(\.name) == ["rust", "new.swift_things"])
        #expect(document.views.map(\.text) == ["rust -title:beta", "title:swift newer:7d"])
        #expect(document.views[0].query == (try SearchQuery(parsing: "rust -title:beta")))
        #expect(document.views[0].location.line == 6 && document.views[0].location.column == 3)
        #expect(document.view(named: "rust")?.text == "rust -title:beta" && document.view(named: "Rust") == nil)

        let expected = FilterRules(
            global: [
                FilterRule(.drop, query: try SearchQuery(parsing: "beta OR alpha"), text: "beta OR alpha"),
                FilterRule(.tag("security"), query: try SearchQuery(parsing: "cve OR security"), text: "cve OR security"),
            ],
            feeds: ["swift-repos": [FilterRule(.keep, query: try SearchQuery(parsing: "title:swift*"), text: "title:swift*")]])
        #expect(document.filters == expected)
        #expect(document.feeds.map(\.filters.count) == [1, 0])
        #expect(document.warnings.isEmpty, "\(document.warnings)")
    }

    @Test("no views and no rules: empty, and nothing hides items")
    func absent() throws {
        let document = try load(Self.feeds)
        #expect(document.views.isEmpty && document.filters == .none && !document.filters.hidesItems)
    }

    /// The rendered error of a configuration with `lines` before ``feeds`` (unless it has its own).
    static func error(_ lines: String) -> String {
        renderedError(lines.hasPrefix("feeds:") ? lines : lines + "\n" + feeds)
    }

    static let cases: [BadConfig] = [
        BadConfig(
            name: "a plain query: the column is the scalar's plus the query's",
            yaml: "views:\n  - name: rust\n    query: swift (rust\n",
            expected: """
                feeds.yaml:3:18: error: '(' is never closed
                      query: swift (rust
                                   ^
                  note: the query of view 'rust'
                """),
        BadConfig(
            name: "a double-quoted query: one column more, for the quote",
            yaml: "views:\n  - name: rust\n    query: \"swift titel:x\"\n",
            expected: """
                feeds.yaml:3:19: error: unknown field 'titel:'; did you mean 'title:'? fields: title: summary: author: feed: source: after: before: newer: older:
                      query: "swift titel:x"
                                    ^
                  note: the query of view 'rust'
                """),
        BadConfig(
            name: "escapes before the problem are counted as written",
            yaml: "views:\n  - name: q\n    query: \"\\\"a b\\\" OR\"\n",
            expected: """
                feeds.yaml:3:21: error: OR needs a term after it
                      query: "\\"a b\\" OR"
                                      ^
                  note: the query of view 'q'
                """),
        BadConfig(
            name: "a single-quoted query with a doubled quote",
            yaml: "settings:\n  filters:\n    - drop: 'it''s after:2026-13-01'\n",
            expected: """
                feeds.yaml:3:26: error: 'after:' takes a day as YYYY-MM-DD (UTC), found '2026-13-01'
                      - drop: 'it''s after:2026-13-01'
                                           ^
                  note: the query of a 'drop' rule of settings
                """),
        BadConfig(
            name: "a block scalar: the column on the query's own line",
            yaml: "views:\n  - name: b\n    query: |\n      swift -\n",
            expected: """
                feeds.yaml:4:13: error: '-' must stand right before the term it excludes
                        swift -
                              ^
                  note: the query of view 'b'
                """),
        BadConfig(
            name: "a feed's rule",
            yaml: """
                feeds:
                  - name: swift-repos
                    source: github.repos
                    org: swiftlang
                    filters:
                      - {tag: urgent, when: "OR cve"}
                """,
            expected: """
                feeds.yaml:6:30: error: OR needs a term before it
                        - {tag: urgent, when: "OR cve"}
                                               ^
                  note: the query of the tag rule 'urgent' of feed 'swift-repos'
                """),
        BadConfig(
            name: "an unknown key in a rule: did you mean",
            yaml: "settings:\n  filters:\n    - tag: x\n      wen: swift\n",
            expected: """
                feeds.yaml:4:7: error: unknown key 'wen' in a filter rule
                        wen: swift
                        ^
                  help: did you mean 'when'?
                  keys of a rule: drop, keep, tag, when
                """),
        BadConfig(
            name: "an unknown key in a view: did you mean",
            yaml: "views:\n  - name: x\n    qeury: swift\n",
            expected: """
                feeds.yaml:3:5: error: unknown key 'qeury' in a view
                      qeury: swift
                      ^
                  help: did you mean 'query'?
                  keys of a view: name, query
                """),
        BadConfig(
            name: "a misspelt top-level views",
            yaml: "veiws:\n  - {name: x, query: swift}\n",
            expected: """
                feeds.yaml:1:1: error: unknown top-level key 'veiws'
                  veiws:
                  ^
                  help: did you mean 'views'?
                  allowed top-level keys: defaults, feeds, settings, views, and x-* keys (ignored; a place for anchors)
                """),
        BadConfig(
            name: "a duplicate view name",
            yaml: "views:\n  - {name: x, query: swift}\n  - {name: x, query: rust}\n",
            expected: """
                feeds.yaml:3:12: error: duplicate view name 'x'
                    - {name: x, query: rust}
                             ^
                  note: first declared at feeds.yaml:2:12
                """),
        BadConfig(
            name: "a view name that cannot be part of a URL",
            yaml: "views:\n  - {name: \"my view\", query: swift}\n",
            expected: """
                feeds.yaml:2:12: error: invalid view name 'my view': use letters, digits, '.', '_' and '-' (it is part of /views/NAME.atom)
                    - {name: "my view", query: swift}
                             ^
                """),
        BadConfig(
            name: "an empty query",
            yaml: "settings:\n  filters:\n    - keep: \"\"\n",
            expected: """
                feeds.yaml:3:13: error: 'keep' must not be empty: an empty query matches every item
                      - keep: ""
                              ^
                  note: in a 'keep' rule of settings
                """),
        BadConfig(
            name: "a rule that does two things",
            yaml: "settings:\n  filters:\n    - {drop: beta, keep: swift}\n",
            expected: """
                feeds.yaml:3:20: error: a filter rule does one thing: a rule is {drop: QUERY}, {keep: QUERY} or {tag: LABEL, when: QUERY}
                      - {drop: beta, keep: swift}
                                     ^
                  note: a rule is {drop: QUERY}, {keep: QUERY} or {tag: LABEL, when: QUERY}
                """),
        BadConfig(
            name: "a tag without when",
            yaml: "settings:\n  filters:\n    - tag: urgent\n",
            expected: """
                feeds.yaml:3:7: error: a 'tag' rule needs 'when: QUERY' (the items to label)
                      - tag: urgent
                        ^
                  e.g. {tag: urgent, when: "security OR cve"}
                """),
        BadConfig(
            name: "when on a drop rule",
            yaml: "settings:\n  filters:\n    - {drop: beta, when: swift}\n",
            expected: """
                feeds.yaml:3:20: error: 'when' belongs to a 'tag' rule; a 'drop' rule's query is its value
                      - {drop: beta, when: swift}
                                     ^
                  e.g. {drop: "beta"}
                """),
        BadConfig(
            name: "filters is not a list",
            yaml: "settings:\n  filters: {drop: beta}\n",
            expected: """
                feeds.yaml:2:12: error: 'filters' must be a list of rules, found a mapping
                    filters: {drop: beta}
                             ^
                  e.g. filters: [{drop: "beta OR alpha"}, {keep: "swift"}, {tag: urgent, when: "security"}]
                """),
        BadConfig(
            name: "filters in defaults",
            yaml: "defaults:\n  filters:\n    - drop: beta\n",
            expected: """
                feeds.yaml:2:3: error: 'filters' cannot be set in 'defaults': the rules of every feed go under 'settings: filters:'
                    filters:
                    ^
                """),
    ]

    @Test("rejected with an exact, located message", arguments: cases)
    func rejected(_ config: BadConfig) {
        #expect(Self.error(config.yaml) == config.expected)
    }

    @Test("every bad view and rule is reported, each at its own line")
    func reportsEveryError() {
        let rendered = Self.error(
            """
            settings:
              filters:
                - drop: "("
                - keep: ok
                - keep: ")"
            views:
              - {name: a, query: "a OR"}
              - {name: b, query: fine}
              - {name: c, query: "-"}
            """)
        let lines = rendered.split(separator: "\n").filter { $0.hasPrefix("feeds.yaml:") }.map { $0.prefix(while: { $0 != " " }) }
        #expect(lines == ["feeds.yaml:3:14:", "feeds.yaml:5:14:", "feeds.yaml:7:25:", "feeds.yaml:9:23:"], "\(rendered)")
        #expect(rendered.hasSuffix("4 errors"), "\(rendered)")
    }

    @Test("a feed: or source: naming nothing is a warning, as is a feed's rule about another feed")
    func namesInQueries() throws {
        let document = try load(
            """
            settings:
              filters:
                - drop: "feed:swift-repo"
            views:
              - {name: g, query: "source:github.gist"}
            feeds:
              - name: swift-repos
                source: github.repos
                org: swiftlang
                filters:
                  - keep: "feed:gists OR feed:swift-repos"
              - name: gists
                source: github.gists

            """)
        #expect(
            document.warnings == [
                "feeds.yaml:3:13: warning: 'feed:swift-repo' names no declared feed (did you mean 'swift-repos'?); it matches nothing",
                "feeds.yaml:5:22: warning: 'source:github.gist' names no source type (did you mean 'github.gists'?); it matches nothing",
                "feeds.yaml:11:15: warning: 'feed:gists' in a rule of feed 'swift-repos' never matches: a feed's rules see only its own copy of an item",
            ])
    }
}
