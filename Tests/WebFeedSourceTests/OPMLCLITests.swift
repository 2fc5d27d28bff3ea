import FeedaggTesting
import Foundation
import Testing
import WebFeedSource

/// `feedagg import opml` and `feedagg export opml` through the binary.
@Suite("OPML import and export")
struct OPMLCLITests {
    static let opml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <opml version="1.0">
          <head><title>Reader export</title></head>
          <body>
            <outline text="Tech" title="Tech">
              <outline type="rss" text="Swift.org &amp; friends" title="Swift.org &amp; friends" xmlUrl="https://www.swift.org/atom.xml" htmlUrl="https://www.swift.org/"/>
              <outline type="rss" text="Already here" xmlUrl="https://github.com/swiftlang/swift/releases.atom/"/>
            </outline>
            <outline type="rss" text="Swift.org &amp; friends" xmlUrl="https://blog.example.org/feed"/>
            <outline type="rss" text="Local file" xmlUrl="file:///etc/passwd"/>
            <outline type="rss" text="Twice" xmlUrl="https://blog.example.org/feed"/>
            <outline text="folder without feed"/>
          </body>
        </opml>
        """

    static let feeds = """
        # My feeds — keep this comment
        feeds:
          # releases first
          - name: swift-releases
            source: feed
            url: https://GitHub.com/swiftlang/swift/releases.atom

        # engine settings stay after the list
        settings:
          timeout: 30

        """

    @Test("import appends source: feed entries inside feeds:, keeps comments, skips duplicates and non-http URLs")
    func importThenExport() async throws {
        let folder = try TemporaryFolder("feedagg-opml")
        defer { folder.remove() }
        let config = try folder.write("feeds.yaml", Self.feeds)
        let opml = try folder.write("subs.opml", Self.opml)
        let output = try await TestBinary.runFeedagg(
            ["import", "opml", opml.path, "--config", config.path], currentDirectory: folder.url)
        #expect(output.status == 0, "\(output.summary)")
        #expect(output.stdout.contains("2 feeds added from"), "\(output.stdout)")
        #expect(output.stdout.contains("  + swift-org-friends: https://www.swift.org/atom.xml"), "\(output.stdout)")
        #expect(output.stdout.contains("  + swift-org-friends-2: https://blog.example.org/feed"), "\(output.stdout)")
        #expect(output.stdout.contains("3 subscriptions skipped:"), "\(output.stdout)")
        #expect(output.stdout.contains("'Already here' (https://github.com/swiftlang/swift/releases.atom/): already in feeds.yaml"))
        #expect(output.stdout.contains("'Local file' (file:///etc/passwd): not an http(s) URL"))
        let text = try String(contentsOf: config, encoding: .utf8)
        #expect(
            text == """
                # My feeds — keep this comment
                feeds:
                  # releases first
                  - name: swift-releases
                    source: feed
                    url: https://GitHub.com/swiftlang/swift/releases.atom
                  - name: "swift-org-friends"
                    source: feed
                    url: "https://www.swift.org/atom.xml"
                  - name: "swift-org-friends-2"
                    source: feed
                    url: "https://blog.example.org/feed"

                # engine settings stay after the list
                settings:
                  timeout: 30

                """)
        let validate = try await TestBinary.runFeedagg(["validate", "--config", config.path], currentDirectory: folder.url)
        #expect(validate.status == 0, "\(validate.summary)")
        let again = try await TestBinary.runFeedagg(
            ["import", "opml", opml.path, "--config", config.path], currentDirectory: folder.url)
        #expect(again.stdout.contains("0 feeds added"), "\(again.stdout)")
        #expect(try String(contentsOf: config, encoding: .utf8) == text, "a second import changes nothing")

        let export = try await TestBinary.runFeedagg(["export", "opml", "--config", config.path], currentDirectory: folder.url)
        #expect(export.status == 0, "\(export.summary)")
        let exported = try OPMLDocument.parse(export.standardOutput, path: "export.opml")
        #expect(
            exported.subscriptions.map(\.url)
                == ["https://GitHub.com/swiftlang/swift/releases.atom", "https://www.swift.org/atom.xml", "https://blog.example.org/feed"])
        #expect(exported.subscriptions.map(\.title) == ["swift-releases", "swift-org-friends", "swift-org-friends-2"])
    }

    @Test("a file that is not OPML is an error naming it")
    func notOPML() async throws {
        let folder = try TemporaryFolder("feedagg-opml")
        defer { folder.remove() }
        let config = try folder.write("feeds.yaml", Self.feeds)
        let bad = try folder.write("bad.opml", "<rss version=\"2.0\"/>")
        let output = try await TestBinary.runFeedagg(["import", "opml", bad.path, "--config", config.path], currentDirectory: folder.url)
        #expect(output.status == 2)
        #expect(output.stderr.contains("is not OPML: its root element is <rss>"), "\(output.stderr)")
    }
}
