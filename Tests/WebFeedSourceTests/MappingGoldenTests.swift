import FeedCore
import FeedaggTesting
import Foundation
import Testing
import WebFeedSource

/// Every row of the element mapping table in docs/sources-feed.md: its document parses to
/// exactly the entries the row expects, and, where the table says so, Python's feedparser reads
/// the same ids, titles, links (where the row has one) and dates.
@Suite("Feed element mapping (docs/sources-feed.md)")
struct MappingGoldenTests {
    static let rows = MappingRow.rssRows + MappingRow.extensionRows + MappingRow.atomRows + MappingRow.jsonRows

    @Test("the row's document parses to exactly its entries", arguments: rows)
    func golden(row: MappingRow) throws {
        let document = try FeedDocument.parse(Data(row.document.utf8), url: MappingRow.url)
        #expect(document.format == row.format)
        #expect(document.entries.count == row.expected.count)
        for (index, (actual, expected)) in zip(document.entries, row.expected).enumerated() {
            #expect(actual == expected, "\(row.name): entry \(index + 1)")
        }
    }

    @Test("the row's document streams to the same entries", arguments: rows.filter { $0.format != .jsonFeed })
    func streamed(row: MappingRow) throws {
        let reader = FeedStreamTests.ChunkReader(Array(row.document.utf8), chunk: 7)
        var entries: [FeedEntry] = []
        _ = try FeedDocument.stream(url: MappingRow.url, read: reader.read) { entries.append($0) }
        #expect(entries == row.expected)
    }

    @Test("no two rows share a name, and docs/sources-feed.md's table lists every one")
    func namesInTheTable() throws {
        #expect(Set(Self.rows.map(\.name)).count == Self.rows.count)
        let doc = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("docs/sources-feed.md"), encoding: .utf8)
        for row in Self.rows {
            #expect(doc.contains("| \(row.name) |"), "docs/sources-feed.md has no row '\(row.name)'")
        }
    }

    @Test(
        "feedparser reads the same ids, titles, links and dates where the table says it agrees",
        arguments: rows.filter { if case .agrees = $0.feedparser { true } else { false } })
    func feedparserAgrees(row: MappingRow) async throws {
        let python = RepositoryPaths.root.appendingPathComponent(".build/venv/bin/python")
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "\(python.path) is missing: run `make pytools` to create the virtualenv with feedparser")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mapping-\(UUID().uuidString).xml")
        try Data(row.document.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = RepositoryPaths.root.appendingPathComponent("Scripts/feedparser-entries.py").path
        let output = try await ChildProcess.run(
            python, arguments: [script, file.path, MappingRow.url.absoluteString], timeout: .seconds(120))
        try #require(output.status == 0, "feedparser-entries.py failed: \(output.summary)")
        let theirs = try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [[String: Any]])
        #expect(theirs.count == row.expected.count)
        for (their, ours) in zip(theirs, row.expected) {
            #expect((their["id"] as? String).flatMap { $0.isEmpty ? nil : $0 } == ours.guid, "\(row.name): id")
            // Without a link of ours, feedparser's is the id (a permalink guid, an Atom id): the
            // guid rows of the table tell that difference.
            if let link = ours.link { #expect(their["link"] as? String == link, "\(row.name): link") }
            #expect((their["title"] as? String).flatMap { $0.isEmpty ? nil : $0 } == ours.title, "\(row.name): title")
            let date = (ours.published ?? ours.updated).map { $0.timeIntervalSince1970.rounded(.down) }
            #expect(their["published"] as? Double == date, "\(row.name): date")
        }
    }
}
