import FeedCore
import FeedaggTesting
import Foundation
import Testing
import WebFeedSource

/// Every fixture parses to the entries in `<fixture>.expected.json` (written by
/// `FEEDAGG_UPDATE_GOLDEN=1 swift test --filter FeedGoldenTests`, then reviewed by hand), and to
/// the same ids, titles and links as the Python feedparser reads.
@Suite("Feed documents parse to their golden entries")
struct FeedGoldenTests {
    @Test("fixture matches its golden file", arguments: FeedFixtures.documents.map(\.file))
    func golden(file: String) throws {
        let fixture = try #require(FeedFixtures.documents.first { $0.file == file })
        let document = try FeedFixtures.parse(file, url: fixture.url)
        #expect(document.format == fixture.format)
        let actual = try FeedFixtures.golden(document)
        let goldenURL = FeedFixtures.folder.appendingPathComponent(file + ".expected.json")
        if try TestPrerequisites.rewriting("FEEDAGG_UPDATE_GOLDEN") {
            try Data(actual.utf8).write(to: goldenURL)
        }
        let expected = try String(contentsOf: goldenURL, encoding: .utf8)
        #expect(actual == expected, "\(file): parsed entries differ from \(goldenURL.lastPathComponent)")
    }

    @Test("entry counts of the fixtures")
    func counts() throws {
        let counts = try FeedFixtures.documents.map { try FeedFixtures.parse($0.file, url: $0.url).entries.count }
        #expect(counts == [15, 1, 1, 10, 2, 20, 3, 3, 4, 3, 2, 2])
    }

    /// feedparser 6 does not read JSON Feed: the JSON fixture is checked by its golden file only.
    @Test(
        "the same ids, titles, links and dates as Python's feedparser",
        arguments: FeedFixtures.documents.filter { $0.format != .jsonFeed }.map(\.file))
    func feedparserAgrees(file: String) async throws {
        let fixture = try #require(FeedFixtures.documents.first { $0.file == file })
        let document = try FeedFixtures.parse(file, url: fixture.url)
        let python = RepositoryPaths.root.appendingPathComponent(".build/venv/bin/python")
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "\(python.path) is missing: run `make pytools` to create the virtualenv with feedparser")
        let script = RepositoryPaths.root.appendingPathComponent("Scripts/feedparser-entries.py").path
        let output = try await ChildProcess.run(
            python, arguments: [script, FeedFixtures.folder.appendingPathComponent(file).path, fixture.url],
            timeout: .seconds(120))
        try #require(output.status == 0, "feedparser-entries.py failed: \(output.summary)")
        let entries = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        #expect(entries.count == document.entries.count)
        for (theirs, ours) in zip(entries, document.entries) {
            if let id = theirs["id"] as? String, !id.isEmpty { #expect(ours.guid == id, "\(file): id") }
            if let link = theirs["link"] as? String, !link.isEmpty { #expect(ours.link == link, "\(file): link") }
            if let title = theirs["title"] as? String, !title.isEmpty {
                #expect(ours.title == title.split(whereSeparator: \.isWhitespace).joined(separator: " "), "\(file): title")
            }
            if let published = theirs["published"] as? Double {
                let ours = (ours.published ?? ours.updated)?.timeIntervalSince1970
                #expect(ours == published, "\(file): date of \(theirs["id"] ?? "?")")
            }
        }
    }
}
