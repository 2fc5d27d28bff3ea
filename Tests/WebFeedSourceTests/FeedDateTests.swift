import Foundation
import Testing

@testable import WebFeedSource

/// The date formats of docs/sources-feed.md's date table, each one row: the instant it reads as
/// (`nil`: no date). 1071340202 is 2003-12-13T18:30:02Z.
@Suite("Feed dates (docs/sources-feed.md)")
struct FeedDateTests {
    static let rfc822Rows: [(String, Double?)] = [
        ("Sat, 13 Dec 2003 18:30:02 GMT", 1_071_340_202),
        ("Sat, 13 Dec 2003 18:30:02 UT", 1_071_340_202),
        ("Sat, 13 Dec 2003 18:30:02 UTC", 1_071_340_202),
        ("Sat, 13 Dec 2003 13:30:02 EST", 1_071_340_202),
        ("Sat, 13 Dec 2003 14:30:02 EDT", 1_071_340_202),
        ("Sat, 13 Dec 2003 12:30:02 CST", 1_071_340_202),
        ("Sat, 13 Dec 2003 13:30:02 CDT", 1_071_340_202),
        ("Sat, 13 Dec 2003 11:30:02 MST", 1_071_340_202),
        ("Sat, 13 Dec 2003 12:30:02 MDT", 1_071_340_202),
        ("Sat, 13 Dec 2003 10:30:02 PST", 1_071_340_202),
        ("Sat, 13 Dec 2003 11:30:02 PDT", 1_071_340_202),
        ("Sat, 13 Dec 2003 18:30:02 Z", 1_071_340_202),
        ("Sat, 13 Dec 2003 17:30:02 A", 1_071_340_202),
        ("Sat, 13 Dec 2003 06:30:02 M", 1_071_340_202),
        ("Sat, 13 Dec 2003 19:30:02 N", 1_071_340_202),
        ("Sun, 14 Dec 2003 06:30:02 Y", 1_071_340_202),
        ("Sat, 13 Dec 2003 19:30:02 +0100", 1_071_340_202),
        ("Sat, 13 Dec 2003 13:30:02 -05:00", 1_071_340_202),
        ("Sat, 13 Dec 2003 20:30:02 +02", 1_071_340_202),
        ("Sat, 13 Dec 2003 20:30:02 GMT+0200", 1_071_340_202),
        ("Sat, 13 Dec 2003 18:30 GMT", 1_071_340_200),
        ("Sat, 13 Dec 03 18:30:02 GMT", 1_071_340_202),
        ("Mon, 13 Dec 99 18:30:02 GMT", 945_109_802),
        ("13 Dec 2003 18:30:02 GMT", 1_071_340_202),
        ("  Sat,   13  Dec\t2003 \n 18:30:02   GMT  ", 1_071_340_202),
        ("Sat,13 Dec 2003 18:30:02 GMT", 1_071_340_202),
        ("Sat Dec 13 18:30:02 2003", 1_071_340_202),
        ("Saturday, 13-Dec-03 18:30:02 GMT", 1_071_340_202),
        ("Sat, 13 Dec 2003 18:30:02", 1_071_340_202),
        ("13 Dec 2003", 1_071_273_600),
        ("Sat, 13 December 2003 18:30:02 GMT (UTC)", 1_071_340_202),
    ]

    static let w3cdtfRows: [(String, Double?)] = [
        ("2003", 1_041_379_200),
        ("2003-12", 1_070_236_800),
        ("2003-12-13", 1_071_273_600),
        ("2003-12-13T18:30Z", 1_071_340_200),
        ("2003-12-13T18:30:02Z", 1_071_340_202),
        ("2003-12-13T18:30:02.25Z", 1_071_340_202.25),
        ("2003-12-13T19:30:02+01:00", 1_071_340_202),
        ("2003-12-13T13:30:02-0500", 1_071_340_202),
        ("2003-12-13T18:30:02", 1_071_340_202),
        ("2003-12-13 18:30:02Z", 1_071_340_202),
        ("20031213T183002Z", 1_071_340_202),
        ("20031213T193002+0100", 1_071_340_202),
        ("20031213T1830Z", 1_071_340_200),
        ("20031213", 1_071_273_600),
    ]

    static let unreadableRows: [(String, Double?)] = [
        ("", nil), ("yesterday", nil), ("2003-13-01", nil), ("2003-02-29", nil), ("Thu, 31 Apr 2003 10:00:00 GMT", nil),
        ("13 Dec 2003 25:00:00 GMT", nil), ("2003-12-13T18:30:02+25:00", nil), ("Sat, 13 Dec 2003 18:30:02 XYZ", nil),
        ("12/13/2003", nil), ("200312", nil), ("2003-12-13T18", nil), ("Sat, 13 Foo 2003", nil),
    ]

    @Test("RFC 822/1123/2822 and their variants", arguments: rfc822Rows)
    func rfc822(text: String, seconds: Double?) {
        #expect(FeedDate.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test("W3C-DTF with reduced precision, and ISO 8601 basic", arguments: w3cdtfRows)
    func w3cdtf(text: String, seconds: Double?) {
        #expect(FeedDate.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test("unreadable dates are no date (never the current time)", arguments: unreadableRows)
    func unreadable(text: String, seconds: Double?) {
        #expect(FeedDate.parse(text) == nil)
    }

    @Test("a date in a document: undated rather than failed, read the same in every date element")
    func inDocuments() throws {
        let rss = MappingRow.rss(
            "<item><guid>urn:1</guid><pubDate>13 Dec 03 18:30 EST</pubDate></item><item><guid>urn:2</guid><pubDate>soon</pubDate></item>")
        let document = try FeedDocument.parse(Data(rss.utf8), url: MappingRow.url)
        #expect(document.entries.map(\.published) == [Date(timeIntervalSince1970: 1_071_358_200), nil])
    }
}
