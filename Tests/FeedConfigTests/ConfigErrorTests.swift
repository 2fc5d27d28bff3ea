import FeedCore
import Testing

@testable import FeedConfig

/// A feeds.yaml that must be rejected, with the exact diagnostic the user sees.
struct BadConfig: Sendable, CustomTestStringConvertible {
    var name: String
    var yaml: String
    var environment: [String: String] = [:]
    var expected: String

    var testDescription: String { name }
}

/// Every message is pinned in full (first line, quoted line, caret, notes): they are the UI.
@Suite("Rejected configurations")
struct ConfigErrorTests {
    static let cases: [BadConfig] = [
        BadConfig(
            name: "tab used for indentation",
            yaml: "feeds:\n\t- name: x\n",
            expected: """
                feeds.yaml:2:1: error: invalid YAML: found character that cannot start any token
                  \t- name: x
                  ^
                  note: while scanning for the next token that starts at feeds.yaml:2:1
                  help: YAML does not allow tabs here: indent with spaces
                """),
        BadConfig(
            name: "unterminated quote",
            yaml: "feeds:\n  - name: \"facebook-repos\n    source: github.repos\n",
            expected: [
                "feeds.yaml:4:1: error: invalid YAML: found unexpected end of stream",
                "  ",
                "  ^",
                "  note: while scanning a quoted scalar that starts at feeds.yaml:2:11",
            ].joined(separator: "\n")),
        BadConfig(
            name: "colon inside a plain value",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    org: a: b
                """,
            expected: """
                feeds.yaml:4:11: error: invalid YAML: mapping values are not allowed in this context
                      org: a: b
                            ^
                """),
        BadConfig(
            name: "unquoted ${VAR} in a flow mapping",
            yaml: """
                feeds:
                  - {name: x, source: github.repos, token: ${GITHUB_TOKEN}}
                """,
            expected: """
                feeds.yaml:2:45: error: invalid YAML: did not find expected ',' or '}'
                    - {name: x, source: github.repos, token: ${GITHUB_TOKEN}}
                                                              ^
                  note: while parsing a flow mapping that starts at feeds.yaml:2:5
                  help: inside [ ] or { }, quote a value that uses ${VAR}: "${VAR}"
                """),
        BadConfig(
            name: "unknown source type, close to a known one",
            yaml: """
                feeds:
                  - name: x
                    source: github.repo
                    org: facebook
                """,
            expected: """
                feeds.yaml:3:13: error: unknown source type 'github.repo'
                      source: github.repo
                              ^
                  help: did you mean 'github.repos'?
                  known source types: github.gists, github.members, github.repos, photos.500px
                """),
        BadConfig(
            name: "unknown source type, nothing close",
            yaml: """
                feeds:
                  - name: x
                    source: twitter.timeline
                """,
            expected: """
                feeds.yaml:3:13: error: unknown source type 'twitter.timeline'
                      source: twitter.timeline
                              ^
                  known source types: github.gists, github.members, github.repos, photos.500px
                """),
        BadConfig(
            name: "missing name",
            yaml: """
                feeds:
                  - source: github.repos
                    org: facebook
                """,
            expected: """
                feeds.yaml:2:5: error: feed #1 is missing required parameter 'name'
                    - source: github.repos
                      ^
                """),
        BadConfig(
            name: "duplicate feed name",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    org: facebook
                  - name: x
                    source: github.gists
                """,
            expected: """
                feeds.yaml:5:11: error: duplicate feed name 'x'
                    - name: x
                            ^
                  note: first declared at feeds.yaml:2:11
                """),
        BadConfig(
            name: "unsafe feed name",
            yaml: """
                feeds:
                  - name: ../etc
                    source: github.repos
                """,
            expected: """
                feeds.yaml:2:11: error: invalid feed name '../etc': use letters, digits, '-', '_' and '.', starting with a letter or digit
                    - name: ../etc
                            ^
                """),
        BadConfig(
            name: "missing required parameter",
            yaml: """
                feeds:
                  - name: members
                    source: github.members
                """,
            expected: """
                feeds.yaml:2:5: error: feed 'members' (github.members) is missing required parameter 'org'
                    - name: members
                      ^
                """),
        BadConfig(
            name: "required parameter from an unset variable",
            yaml: """
                feeds:
                  - name: members
                    source: github.members
                    org: ${ORG}
                """,
            expected: """
                feeds.yaml:2:5: error: feed 'members' (github.members) is missing required parameter 'org'
                    - name: members
                      ^
                  note: environment variable ORG is not set (at feeds.yaml:4:10)
                """),
        BadConfig(
            name: "mapping where a string is expected",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    org: {login: facebook}
                """,
            expected: """
                feeds.yaml:4:10: error: 'org' must be a string, found a mapping
                      org: {login: facebook}
                           ^
                """),
        BadConfig(
            name: "per_page above the source's maximum",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    org: facebook
                    per_page: 500
                """,
            expected: """
                feeds.yaml:5:15: error: 'per_page' must be between 1 and 100, found 500
                      per_page: 500
                                ^
                """),
        BadConfig(
            name: "max_pages not an integer",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    max_pages: many
                """,
            expected: """
                feeds.yaml:4:16: error: 'max_pages' must be an integer, found 'many'
                      max_pages: many
                                 ^
                """),
        BadConfig(
            name: "max_pages zero",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    max_pages: 0
                """,
            expected: """
                feeds.yaml:4:16: error: 'max_pages' must be at least 1, found 0
                      max_pages: 0
                                 ^
                """),
        BadConfig(
            name: "base_url not http(s)",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    base_url: ftp://ghe.example.com/api/v3
                """,
            expected: """
                feeds.yaml:4:15: error: 'base_url' must be an absolute http(s) URL, found 'ftp://ghe.example.com/api/v3'
                      base_url: ftp://ghe.example.com/api/v3
                                ^
                """),
        BadConfig(
            name: "unknown parameter with did-you-mean",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    orgg: facebook
                """,
            expected: """
                feeds.yaml:4:5: error: unknown parameter 'orgg' for source type 'github.repos'
                      orgg: facebook
                      ^
                  help: did you mean 'org'?
                  parameters of github.repos: allow_insecure_http, base_url, filters, interval, max_pages, name, org, per_page, source, token, token_file, type, user
                """),
        BadConfig(
            name: "parameter of another source type",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    feature: editors
                """,
            expected: """
                feeds.yaml:4:5: error: unknown parameter 'feature' for source type 'github.repos'
                      feature: editors
                      ^
                  note: 'feature' is a parameter of photos.500px
                  parameters of github.repos: allow_insecure_http, base_url, filters, interval, max_pages, name, org, per_page, source, token, token_file, type, user
                """),
        BadConfig(
            name: "unknown top-level key",
            yaml: """
                feed:
                  - name: x
                    source: github.repos
                """,
            expected: """
                feeds.yaml:1:1: error: unknown top-level key 'feed'
                  feed:
                  ^
                  help: did you mean 'feeds'?
                  allowed top-level keys: defaults, feeds, settings, views, and x-* keys (ignored; a place for anchors)
                """),
        BadConfig(
            name: "missing feeds",
            yaml: """
                defaults:
                  token: abc
                """,
            expected: """
                feeds.yaml:1:1: error: missing top-level key 'feeds' (the list of feeds to pull)
                  defaults:
                  ^
                """),
        BadConfig(
            name: "feeds is not a list",
            yaml: """
                feeds:
                  name: x
                  source: github.repos
                """,
            expected: """
                feeds.yaml:2:3: error: 'feeds' must be a list of feeds, found a mapping
                    name: x
                    ^
                """),
        BadConfig(
            name: "feed is not a mapping",
            yaml: """
                feeds:
                  - facebook-repos
                """,
            expected: """
                feeds.yaml:2:5: error: each feed must be a mapping with 'name' and 'source', found a scalar
                    - facebook-repos
                      ^
                """),
        BadConfig(
            name: "${VAR:?message} with the variable unset",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    token: ${GITHUB_TOKEN:?create one at https://github.com/settings/tokens}
                """,
            expected: """
                feeds.yaml:4:12: error: environment variable GITHUB_TOKEN is not set: create one at https://github.com/settings/tokens
                      token: ${GITHUB_TOKEN:?create one at https://github.com/settings/tokens}
                             ^
                """),
        BadConfig(
            name: "${VAR:?message} with the variable empty",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    token: "${GITHUB_TOKEN:?needed}"
                """,
            environment: ["GITHUB_TOKEN": ""],
            expected: """
                feeds.yaml:4:13: error: environment variable GITHUB_TOKEN is empty: needed
                      token: "${GITHUB_TOKEN:?needed}"
                              ^
                """),
        BadConfig(
            name: "unterminated ${",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    base_url: https://${GHE_HOST/api/v3
                """,
            expected: """
                feeds.yaml:4:23: error: unterminated '${' in value (write '$$' for a literal '$')
                      base_url: https://${GHE_HOST/api/v3
                                        ^
                """),
        BadConfig(
            name: "malformed variable reference",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    org: ${ORG NAME}
                """,
            expected: """
                feeds.yaml:4:10: error: invalid environment variable reference '${ORG NAME}': expected ${NAME}, ${NAME:-default} or ${NAME:?message}
                      org: ${ORG NAME}
                           ^
                """),
        BadConfig(
            name: "since is not a date",
            yaml: """
                feeds:
                  - name: x
                    source: github.gists
                    since: last tuesday
                """,
            expected: """
                feeds.yaml:4:12: error: 'since' must be an ISO 8601 date like 2024-01-31T00:00:00Z, found 'last tuesday'
                      since: last tuesday
                             ^
                """),
        BadConfig(
            name: "duplicate key in one mapping",
            yaml: """
                feeds:
                  - name: x
                    source: github.repos
                    org: facebook
                    org: apple
                """,
            expected: """
                feeds.yaml:5:5: error: duplicate key 'org' in mapping
                      org: apple
                      ^
                  note: first defined at feeds.yaml:4:5
                """),
        BadConfig(
            name: "two documents",
            yaml: """
                feeds: []
                ---
                feeds: []
                """,
            expected: """
                feeds.yaml:2:1: error: a configuration file holds a single YAML document, found a second one
                  ---
                  ^
                  help: remove this '---' and what follows, or merge it into the first document
                """),
        BadConfig(
            name: "empty file",
            yaml: "# nothing here yet\n",
            expected: "error: feeds.yaml is empty: expected a mapping with a 'feeds' list"),
        BadConfig(
            name: "top level is a list",
            yaml: """
                - name: x
                  source: github.repos
                """,
            expected: """
                feeds.yaml:1:1: error: the top level must be a mapping with a 'feeds' list, found a list
                  - name: x
                  ^
                """),
        BadConfig(
            name: "unknown alias",
            yaml: """
                feeds:
                  - <<: *github
                    name: x
                """,
            expected: """
                feeds.yaml:2:9: error: unknown alias '*github'
                    - <<: *github
                          ^
                  note: an anchor '&github' must be defined before it is used
                """),
        BadConfig(
            name: "merge of a scalar",
            yaml: """
                x-source: &source github.repos
                feeds:
                  - <<: *source
                    name: x
                """,
            expected: """
                feeds.yaml:1:11: error: '<<' merges a mapping or a list of mappings (such as *defaults), found a scalar
                  x-source: &source github.repos
                            ^
                """),
        BadConfig(
            name: "unknown key in defaults",
            yaml: """
                defaults:
                  tokn: ${GITHUB_TOKEN}
                feeds: []
                """,
            expected: """
                feeds.yaml:2:3: error: unknown key 'tokn' in 'defaults'
                    tokn: ${GITHUB_TOKEN}
                    ^
                  help: did you mean 'token'?
                  allowed keys in defaults: allow_insecure_http, base_url, category, consumer_key, consumer_key_file, feature, interval, max_pages, org, per_page, since, token, token_file, type, user
                """),
        BadConfig(
            name: "name in defaults",
            yaml: """
                defaults:
                  name: x
                feeds: []
                """,
            expected: """
                feeds.yaml:2:3: error: 'name' cannot be set in 'defaults': each feed gives its own
                    name: x
                    ^
                """),
        BadConfig(
            name: "unknown setting",
            yaml: """
                settings:
                  page_concurency: 4
                feeds: []
                """,
            expected: """
                feeds.yaml:2:3: error: unknown setting 'page_concurency'
                    page_concurency: 4
                    ^
                  help: did you mean 'page_concurrency'?
                  known settings: connect_timeout, filters, first_byte_timeout, interval, keep_raw, lease_timeout, max_connections_per_host, min_refresh, page_concurrency, rate_limit_wait, redact_params, retries, retry_max_wait, store, store_password_file, store_tls, timeout, user_agent
                """),
        BadConfig(
            name: "misspelt first_byte_timeout",
            yaml: """
                settings:
                  first_byte_timout: 5
                feeds: []
                """,
            expected: """
                feeds.yaml:2:3: error: unknown setting 'first_byte_timout'
                    first_byte_timout: 5
                    ^
                  help: did you mean 'first_byte_timeout'?
                  known settings: connect_timeout, filters, first_byte_timeout, interval, keep_raw, lease_timeout, max_connections_per_host, min_refresh, page_concurrency, rate_limit_wait, redact_params, retries, retry_max_wait, store, store_password_file, store_tls, timeout, user_agent
                """),
        BadConfig(
            name: "first_byte_timeout not positive",
            yaml: """
                settings:
                  first_byte_timeout: 0
                feeds: []
                """,
            expected: """
                feeds.yaml:2:23: error: 'first_byte_timeout' must be a number of seconds greater than 0 and at most 86400, found '0'
                    first_byte_timeout: 0
                                        ^
                """),
        BadConfig(
            name: "setting out of range",
            yaml: """
                settings:
                  max_connections_per_host: 100
                feeds: []
                """,
            expected: """
                feeds.yaml:2:29: error: 'max_connections_per_host' must be between 1 and 64, found 100
                    max_connections_per_host: 100
                                              ^
                """),
        BadConfig(
            name: "timeout not a positive number",
            yaml: """
                settings:
                  timeout: -5
                feeds: []
                """,
            expected: """
                feeds.yaml:2:12: error: 'timeout' must be a number of seconds greater than 0 and at most 86400, found '-5'
                    timeout: -5
                             ^
                """),
    ]

    @Test("rejected with an exact, located message", arguments: cases)
    func rejected(_ config: BadConfig) {
        #expect(renderedError(config.yaml, environment: config.environment) == config.expected)
    }

    @Test func inheritedDefaultIsCheckedAgainstEachSource() {
        let tiny = SourceDescriptor(
            typeName: "tiny.list", summary: "", parameters: [], pagination: "", defaultBaseURL: "https://tiny.example",
            defaultPageSize: 5, maxPageSize: 10)
        let yaml = """
            defaults:
              per_page: 50
            feeds:
              - name: t
                source: tiny.list
            """
        #expect(throws: ConfigError.self) {
            try FeedsLoader.parse(text: yaml, path: "feeds.yaml", sources: TestSources.all + [tiny], environment: [:])
        }
        do {
            _ = try FeedsLoader.parse(text: yaml, path: "feeds.yaml", sources: TestSources.all + [tiny], environment: [:])
        } catch {
            #expect(
                String(describing: error) == """
                    feeds.yaml:2:13: error: 'per_page' must be between 1 and 10, found 50
                        per_page: 50
                                  ^
                      note: inherited by feed 't' from 'defaults'
                    """)
        }
    }

    @Test func unreadableFileNamesPathAndReason() {
        let missing = "/nonexistent-feedagg-dir/feeds.yaml"
        #expect(throws: ConfigError.self) { try FeedsLoader.load(path: missing, sources: TestSources.all) }
        do {
            _ = try FeedsLoader.load(path: missing, sources: TestSources.all, environment: [:])
        } catch {
            #expect(String(describing: error) == "error: cannot read \(missing): No such file or directory")
        }
        do {
            _ = try FeedsLoader.load(path: "/", sources: TestSources.all, environment: [:])
        } catch {
            #expect(String(describing: error) == "error: cannot read /: Is a directory")
        }
    }

    @Test func aliasBombIsRefused() {
        var yaml = "x-0: &a0 [x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            let previous = Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ", ")
            yaml += "x-\(level): &a\(level) [\(previous)]\n"
        }
        yaml += "feeds: []\n"
        let message = renderedError(yaml)
        #expect(
            message.hasPrefix(
                "feeds.yaml:7:6: error: document is too large once aliases are expanded (more than 1000000 nodes)"),
            "\(message)")
    }

    @Test func deepNestingIsRefused() {
        let yaml = "feeds: " + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "\n"
        #expect(renderedError(yaml).hasPrefix("feeds.yaml:1:"))
        #expect(renderedError(yaml).contains("error: nesting is too deep (more than 256 levels)"))
    }

    @Test func selfReferentialAliasIsRefused() {
        #expect(
            renderedError("x-a: &a [1, *a]\nfeeds: []\n") == """
                feeds.yaml:1:13: error: alias '*a' refers to a node that contains it
                  x-a: &a [1, *a]
                              ^
                """)
    }

    @Test func invalidUTF8IsLocated() throws {
        let bytes = Array("feeds:\n  - name: ab".utf8) + [0xFF] + Array("\n".utf8)
        #expect(throws: ConfigError.self) {
            try FeedsLoader.parse(bytes: bytes, path: "feeds.yaml", sources: TestSources.all, environment: [:])
        }
        do {
            _ = try FeedsLoader.parse(bytes: bytes, path: "feeds.yaml", sources: TestSources.all, environment: [:])
        } catch let error as ConfigError {
            #expect(error.message == "invalid YAML: invalid leading UTF-8 octet")
            #expect(error.location?.line == 2)
            #expect(error.location?.column == 13)
        }
    }
}
