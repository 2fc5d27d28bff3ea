import FeedCore
import FeedaggTesting
import Foundation
import Testing

@testable import FeedConfig

/// The feeds.yaml example from the README, verbatim.
let readmeExample = """
    # feeds.yaml
    defaults:
      token: ${GITHUB_TOKEN}      # optional: unset means anonymous requests
      per_page: 100

    feeds:
      - name: facebook-repos
        source: github.repos
        org: facebook

      - name: xebia-members
        source: github.members
        org: xebia-france

      - name: public-gists
        source: github.gists
        max_pages: 3

      - name: alblue-gists
        source: github.gists
        user: alblue

      - name: editors-photos
        source: photos.500px
        feature: editors
        consumer_key: ${PX_CONSUMER_KEY}
    """

@Suite("Valid configurations")
struct FeedsLoaderTests {
    @Test func readmeExample_parses() throws {
        let document = try load(readmeExample, environment: ["GITHUB_TOKEN": "ghp_secret"])

        #expect(document.feeds.map(\.name) == [
            "facebook-repos", "xebia-members", "public-gists", "alblue-gists", "editors-photos",
        ])
        #expect(document.feeds.map(\.sourceType) == [
            "github.repos", "github.members", "github.gists", "github.gists", "photos.500px",
        ])
        let feeds = Dictionary(uniqueKeysWithValues: document.feeds.map { ($0.name, $0) })
        #expect(try feeds["facebook-repos"]?.parameters.string("org") == "facebook")
        #expect(try feeds["xebia-members"]?.parameters.requiredString("org") == "xebia-france")
        #expect(try feeds["public-gists"]?.parameters.string("user") == nil)
        #expect(try feeds["public-gists"]?.parameters.integer("max_pages") == 3)
        #expect(try feeds["alblue-gists"]?.parameters.string("user") == "alblue")
        #expect(try feeds["editors-photos"]?.parameters.string("feature") == "editors")

        // defaults: the set variable reaches every GitHub feed, per_page reaches every feed…
        for name in ["facebook-repos", "xebia-members", "public-gists", "alblue-gists"] {
            #expect(try feeds[name]?.parameters.secret("token")?.value == "ghp_secret")
        }
        for feed in document.feeds {
            #expect(try feed.parameters.integer("per_page", in: 1...100) == 100)
        }
        // …but not a key the photos source does not accept.
        #expect(feeds["editors-photos"]?.parameters.value("token") == nil)
        // The unset variable makes consumer_key absent, with a warning.
        #expect(try feeds["editors-photos"]?.parameters.secret("consumer_key") == nil)
        #expect(document.warnings == [
            "feeds.yaml:26:19: warning: environment variable PX_CONSUMER_KEY is not set; feed 'editors-photos' runs without 'consumer_key'"
        ])
        #expect(document.defaults?["per_page"]?.scalar == "100")
        #expect(document.settings == FeedsDocument.Settings())

        // Declarations point at their `-`.
        let first = try #require(document.feeds.first)
        #expect((first.location.line, first.location.column) == (7, 3))
        #expect((first.node.location.line, first.node.location.column) == (7, 5))
    }

    @Test func readmeExample_withoutAnyVariable() throws {
        let document = try load(readmeExample, environment: ["PX_CONSUMER_KEY": "pxkey"])
        #expect(try document.feeds[4].parameters.secret("consumer_key")?.value == "pxkey")
        for feed in document.feeds { #expect(try feed.parameters.secret("token") == nil) }
        #expect(document.warnings == [
            "feeds.yaml:3:10: warning: environment variable GITHUB_TOKEN is not set; feeds 'facebook-repos', 'xebia-members', 'public-gists', 'alblue-gists' run without 'token'"
        ])
    }

    @Test func loadsFromDisk() throws {
        let folder = try TemporaryFolder("feedconfig")
        defer { folder.remove() }
        let path = try folder.write("feeds.yaml", readmeExample).path
        let document = try FeedsLoader.load(
            path: path, sources: TestSources.all, environment: ["GITHUB_TOKEN": "t", "PX_CONSUMER_KEY": "k"])
        #expect(document.feeds.count == 5)
        #expect(document.warnings.isEmpty)
        #expect(document.feeds[0].node.location.file.path == path)
    }

    @Test func settingsBlock() throws {
        let document = try load(
            """
            settings:
              max_connections_per_host: 12
              page_concurrency: 4
              connect_timeout: 2.5
              timeout: 30
              first_byte_timeout: 7.5
              user_agent: feedagg/1.0 (+https://example.com)
            feeds: []
            """)
        var expected = FeedsDocument.Settings(
            maxConnectionsPerHost: 12, pageConcurrency: 4, connectTimeout: 2.5, timeout: 30,
            userAgent: "feedagg/1.0 (+https://example.com)")
        expected.firstByteTimeout = 7.5
        #expect(document.settings == expected)
        #expect(document.warnings == ["feeds.yaml:8:8: warning: 'feeds' is empty; there is nothing to pull"])
    }

    @Test("lease_timeout: 2 minutes unless set; a duration of 10 s to 1 d, as interval is written")
    func leaseTimeoutSetting() throws {
        #expect(try load("feeds: []").settings.leaseTimeout == 120)
        #expect(try load("settings:\n  lease_timeout: 5m\nfeeds: []").settings.leaseTimeout == 300)
        #expect(try load("settings:\n  lease_timeout: 45\nfeeds: []").settings.leaseTimeout == 45)
        for (value, message) in [
            ("5s", "'lease_timeout' must be at least 10s, found '5s'"),
            ("2d", "'lease_timeout' must be at most 1d (one day), found '2d'"),
            ("soon", "'lease_timeout' must be a duration such as 15m, 90s or 2h"),
        ] {
            do {
                _ = try load("settings:\n  lease_timeout: \(value)\nfeeds: []")
                Issue.record("lease_timeout: \(value) was accepted")
            } catch {
                #expect("\(error)".contains("feeds.yaml:2:18: error: " + message), "\(error)")
            }
        }
    }

    @Test("keep_raw: off unless set to true")
    func keepRawSetting() throws {
        #expect(try load("feeds: []").settings.keepRaw == false)
        #expect(try load("settings:\n  keep_raw: true\nfeeds: []").settings.keepRaw == true)
        #expect(try load("settings:\n  keep_raw: false\nfeeds: []").settings.keepRaw == false)
    }

    @Test func settingsDefaultsAndUnsetVariable() throws {
        let document = try load(
            """
            settings:
              user_agent: ${FEEDAGG_UA}
              timeout: ${FEEDAGG_TIMEOUT:-45}
            feeds:
              - name: a
                source: github.repos
                org: apple
            """)
        #expect(document.settings == FeedsDocument.Settings(timeout: 45))
        #expect(document.settings.maxConnectionsPerHost == 16)
        #expect(document.settings.pageConcurrency == 16)
        #expect(document.settings.connectTimeout == 10)
        #expect(document.settings.firstByteTimeout == 30)
        #expect(document.settings.userAgent == "feedagg/0.1")
        #expect(document.warnings == [
            "feeds.yaml:2:15: warning: environment variable FEEDAGG_UA is not set; setting 'user_agent' keeps its default"
        ])
    }

    @Test func ownNullOverridesDefault() throws {
        let document = try load(
            """
            defaults:
              token: abc
            feeds:
              - name: anonymous
                source: github.repos
                org: apple
                token: ~
            """)
        #expect(try document.feeds[0].parameters.secret("token") == nil)
    }

    @Test func anchorsAliasesAndMergeKeys() throws {
        let yaml = """
            x-github: &github
              source: github.repos
              token: ${GITHUB_TOKEN}
              per_page: 50
            x-paging: &paging
              per_page: 10
              max_pages: 2
            x-org: &org facebook

            feeds:
              - name: a
                <<: *github
                org: *org
              - name: b
                <<: [*paging, *github]
                user: alblue
                max_pages: 5
              - &gists
                name: c
                source: github.gists
                since: 2024-01-31
              - <<: *gists
                name: d
            """
        let document = try load(yaml, environment: ["GITHUB_TOKEN": "tok"])
        #expect(document.feeds.map(\.name) == ["a", "b", "c", "d"])
        #expect(document.feeds.map(\.sourceType) == ["github.repos", "github.repos", "github.gists", "github.gists"])

        let a = document.feeds[0].parameters
        #expect(try a.string("org") == "facebook")
        #expect(try a.secret("token")?.value == "tok")
        #expect(try a.integer("per_page") == 50)
        // A merged value keeps the location where it was written.
        let token = try #require(a.value("token"))
        #expect((token.location.line, token.location.column) == (3, 10))
        let org = try #require(a.value("org"))
        #expect((org.location.line, org.location.column) == (8, 8))  // an anchored node starts at its '&'


        let b = document.feeds[1].parameters
        #expect(try b.integer("per_page") == 10)  // the first merged mapping wins
        #expect(try b.integer("max_pages") == 5)  // explicit keys win
        #expect(try b.string("source") == "github.repos")
        let perPage = try #require(b.value("per_page"))
        #expect((perPage.location.line, perPage.location.column) == (6, 13))
        let maxPages = try #require(b.value("max_pages"))
        #expect((maxPages.location.line, maxPages.location.column) == (17, 16))

        let d = document.feeds[3]
        #expect(try d.parameters.date("since") == ISO8601.date(from: "2024-01-31T00:00:00Z"))
        #expect(d.node["name"]?.scalar == "d")
        // Merged entries take the place of the `<<` key; explicit ones keep theirs.
        #expect(d.node.entries?.map { $0.key.scalar ?? "" } == ["source", "since", "name"])
    }

    @Test func mergedKeyMayBeOverriddenWithoutDuplicateError() throws {
        let document = try load(
            """
            x-base: &base {source: github.repos, org: apple}
            feeds:
              - {<<: *base, name: x, org: swiftlang}
            """)
        #expect(try document.feeds[0].parameters.string("org") == "swiftlang")
    }

    @Test func feedsInFlowStyle() throws {
        let document = try load(
            "feeds: [{name: a, source: github.gists}, {name: b, source: github.members, org: o}]\n")
        #expect(document.feeds.map(\.name) == ["a", "b"])
        #expect((document.feeds[1].location.line, document.feeds[1].location.column) == (1, 42))
    }

    @Test func quotedValuesAndInterpolationStyles() throws {
        let document = try load(
            """
            feeds:
              - name: "quoted-${SUFFIX}"
                source: 'github.repos'
                org: ${ORG:-apple}
                type: $$literal
                base_url: https://${HOST}/api/v3
            """,
            environment: ["SUFFIX": "1", "HOST": "ghe.example.com"])
        let feed = try #require(document.feeds.first)
        #expect(feed.name == "quoted-1")
        #expect(try feed.parameters.string("org") == "apple")
        #expect(try feed.parameters.string("type") == "$literal")
        #expect(try feed.parameters.url("base_url")?.absoluteString == "https://ghe.example.com/api/v3")
    }

    @Test func crlfAndByteOrderMark() throws {
        let text = "\u{FEFF}feeds:\r\n  - name: a\r    source: github.repos\r\n    orgg: x\r\n"
        #expect(
            renderedError(text) == """
                feeds.yaml:4:5: error: unknown parameter 'orgg' for source type 'github.repos'
                      orgg: x
                      ^
                  help: did you mean 'org'?
                  parameters of github.repos: allow_insecure_http, base_url, filters, interval, max_pages, name, org, per_page, source, token, token_file, type, user
                """)
    }
}
