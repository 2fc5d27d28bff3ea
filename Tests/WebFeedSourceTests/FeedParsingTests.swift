import FeedCore
import Foundation
import Testing
import WebFeedSource

/// Details of reading: encodings, ids, links, dates, paging links.
@Suite("Feed parsing details")
struct FeedParsingTests {
    static let url = URL(string: "https://blog.test/feed/index.xml")!

    static func rss(_ items: String, prolog: String = #"<?xml version="1.0" encoding="UTF-8"?>"#) -> String {
        prolog + #"<rss version="2.0"><channel><title>t</title>"# + items + "</channel></rss>"
    }

    @Test("the Content-Type charset reads a body without an encoding declaration; a BOM wins over it")
    func charsets() throws {
        let text = Self.rss("<item><guid>1</guid><title>Caf\u{E9} \u{20AC}</title></item>", prolog: #"<?xml version="1.0"?>"#)
        let latin1 = try #require(text.replacingOccurrences(of: "\u{20AC}", with: "").data(using: .isoLatin1))
        let read = try FeedDocument.parse(latin1, contentType: "application/rss+xml; charset=ISO-8859-1", url: Self.url)
        #expect(read.entries.first?.title == "Café")
        let cp1252 = try #require(text.data(using: .windowsCP1252))
        let euro = try FeedDocument.parse(cp1252, contentType: "text/xml; charset=\"windows-1252\"", url: Self.url)
        #expect(euro.entries.first?.title == "Café €")
        for encoding: String.Encoding in [.utf16LittleEndian, .utf16BigEndian] {
            let bom: [UInt8] = encoding == .utf16LittleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]
            let body = Data(bom) + (try #require(text.data(using: encoding)))
            let document = try FeedDocument.parse(body, contentType: "text/xml; charset=iso-8859-1", url: Self.url)
            #expect(document.entries.first?.title == "Café €", "\(encoding)")
        }
        let utf8BOM = Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)
        #expect(try FeedDocument.parse(utf8BOM, url: Self.url).entries.first?.title == "Café €")
        let json = Data([0xEF, 0xBB, 0xBF]) + Data(#"{"version":"https://jsonfeed.org/version/1","items":[{"id":"1","title":"x"}]}"#.utf8)
        #expect(try FeedDocument.parse(json, url: Self.url).entries.count == 1)
    }

    @Test("id: guid, else link, else a digest of title and date; equal inputs give equal digests")
    func stableIDs() throws {
        let document = try FeedDocument.parse(
            Data(
                Self.rss(
                    "<item><guid>g-1</guid><link>/a</link><title>A</title></item>"
                        + "<item><link>/b</link><title>B</title></item>"
                        + "<item><title>C</title><pubDate>Tue, 04 Nov 2025 08:00:00 GMT</pubDate></item>"
                        + "<item><title>C</title></item>"
                        + "<item><title>C</title><pubDate>Tue, 04 Nov 2025 08:00:00 GMT</pubDate></item>"
                ).utf8), url: Self.url)
        let ids = document.entries.map(\.stableID)
        #expect(ids[0] == "g-1")
        #expect(ids[1] == "https://blog.test/b")
        #expect(ids[2].hasPrefix("digest:") && ids[2].count == "digest:".count + 16)
        #expect(ids[2] != ids[3], "the date is part of the digest")
        #expect(ids[2] == ids[4])
        #expect(FeedEntry(title: "C").stableID == ids[3])
    }

    @Test("Atom links: rel=alternate (or no rel) resolved against nested xml:base and the feed URL")
    func xmlBase() throws {
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://example.org/blog/">
              <title>b</title>
              <link rel="next" href="?page=2"/>
              <entry xml:base="2025/">
                <id>e1</id><title type="html">&lt;b&gt;Bold&lt;/b&gt; &amp;amp; more</title>
                <link rel="edit" href="/edit/1"/>
                <link rel="alternate" type="text/html" href="post.html"/>
                <link rel="enclosure" type="image/jpeg" href="pic.jpg"/>
                <published>2025-11-01T10:00:00+02:00</published>
                <summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>One</p><p>Two</p></div></summary>
              </entry>
              <entry><id>e2</id><title>No rel</title><link href="../other"/></entry>
            </feed>
            """
        let document = try FeedDocument.parse(Data(atom.utf8), url: Self.url)
        #expect(document.nextURL?.absoluteString == "https://example.org/blog/?page=2")
        #expect(document.entries[0].link == "https://example.org/blog/2025/post.html")
        #expect(document.entries[0].imageURL == "https://example.org/blog/2025/pic.jpg")
        #expect(document.entries[0].title == "Bold & more")
        #expect(document.entries[0].summary == "One Two")
        #expect(document.entries[0].published == Date(timeIntervalSince1970: 1_761_984_000))
        #expect(document.entries[1].link == "https://example.org/other")
    }

    @Test(
        "RFC 822 dates and their usual broken variants",
        arguments: [
            ("Sat, 07 Sep 2002 00:00:01 GMT", 1_031_356_801),
            ("07 Sep 2002 00:00:01 GMT", 1_031_356_801),
            ("Mon, 07 Sep 2002 00:00:01 GMT", 1_031_356_801),
            ("Sat, 7 Sep 02 00:00:01 +0000", 1_031_356_801),
            ("Saturday, 07 September 2002 00:00:01 UT", 1_031_356_801),
            ("Sat, 07 Sept 2002 02:00:01 +02:00", 1_031_356_801),
            ("Fri, 06 Sep 2002 20:00:01 EDT", 1_031_356_801),
            ("Sat, 07 Sep 2002 00:00 Z", 1_031_356_800),
            ("Sat, 07 Sep 2002 00:00:01", 1_031_356_801),
            ("Saturday, 07-Sep-02 00:00:01 GMT", 1_031_356_801),
            ("Sat, 07 Sep 2002 00:00:01 GMT+0000 (Coordinated Universal Time)", 1_031_356_801),
            ("2002-09-07T00:00:01Z", 1_031_356_801),
            ("2002-09-07T02:00:01.000+02:00", 1_031_356_801),
            ("2002-09-07", 1_031_356_800),
        ])
    func dates(text: String, seconds: Int) throws {
        let item = "<item><guid>1</guid><pubDate>\(text)</pubDate></item>"
        let document = try FeedDocument.parse(Data(Self.rss(item).utf8), url: Self.url)
        #expect(document.entries.first?.published == Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// RFC 822 dates are computed by arithmetic for the years 1600–9999: the same instants as
    /// Foundation's Gregorian calendar, and the same days and seconds that do not exist.
    @Test("RFC 822 dates agree with Foundation's calendar, including days that do not exist")
    func rfc822Arithmetic() throws {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var expected: [Date?] = []
        var items = ""
        for year in [1600, 1899, 1900, 1970, 1999, 2000, 2024, 2100, 2400, 9999] {
            for month in 1...12 {
                for day in [1, 28, 29, 30, 31] {
                    for (hour, minute, second) in [(23, 59, 59), (0, 0, 60), (12, 30, 0)] {
                        var components = DateComponents()
                        components.calendar = Calendar(identifier: .gregorian)
                        components.timeZone = TimeZone(secondsFromGMT: 0)
                        (components.year, components.month, components.day) = (year, month, day)
                        (components.hour, components.minute, components.second) = (hour, minute, second)
                        expected.append(components.isValidDate ? components.date?.addingTimeInterval(-5400) : nil)
                        let text = String(format: "%02d %@ %d %02d:%02d:%02d +0130", day, months[month - 1], year, hour, minute, second)
                        items += "<item><guid>\(expected.count)</guid><pubDate>\(text)</pubDate></item>"
                    }
                }
            }
        }
        let document = try FeedDocument.parse(Data(Self.rss(items).utf8), url: Self.url)
        #expect(document.entries.map(\.published) == expected)
        #expect(expected.contains(nil) && expected.contains { $0 != nil })
    }

    @Test("unreadable dates leave the entry undated", arguments: ["yesterday", "32 Jan 2020 10:00:00 GMT", "", "Sat, 07 Foo 2002"])
    func undated(text: String) throws {
        let item = "<item><guid>1</guid><pubDate>\(text)</pubDate></item>"
        let document = try FeedDocument.parse(Data(Self.rss(item).utf8), url: Self.url)
        #expect(document.entries.count == 1)
        #expect(document.entries.first?.published == nil)
    }

    @Test("JSON Feed next_url is the next page, resolved against the feed's URL; a non-http one is ignored")
    func jsonNext() throws {
        func next(_ value: String) throws -> URL? {
            let body = #"{"version":"https://jsonfeed.org/version/1.1","items":[],"next_url":"\#(value)"}"#
            return try FeedDocument.parse(Data(body.utf8), url: Self.url).nextURL
        }
        #expect(try next("feed.json?page=2")?.absoluteString == "https://blog.test/feed/feed.json?page=2")
        #expect(try next("file:///etc/passwd") == nil)
    }

    @Test("summaries are plain text: markup, scripts and entities gone, whitespace folded")
    func summaries() throws {
        let item = """
            <item><guid>1</guid><description><![CDATA[<div>Hello&nbsp;<b>world</b><script>alert(1)</script>
            <style>p{}</style>&lt;tag&gt; &#x2603; <p>next</p></div>]]></description></item>
            """
        let document = try FeedDocument.parse(Data(Self.rss(item).utf8), url: Self.url)
        #expect(document.entries.first?.summary == "Hello world <tag> ☃ next")
    }

    /// JSON Feed's `summary` and `content_text` are plain text (jsonfeed.org/version/1.1): a `<i>`
    /// there is the characters, as in the recorded jsonfeed-3960.json ("…Web-Entwickler <i>-, <b>-
    /// und <u>-Tags…"); only `content_html` is HTML.
    @Test("JSON Feed summary and content_text are plain text, only folded; content_html is stripped")
    func jsonPlainText() throws {
        func summary(_ fields: String) throws -> String? {
            let body = #"{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"1",\#(fields)}]}"#
            return try FeedDocument.parse(Data(body.utf8), url: Self.url).entries.first?.summary
        }
        #expect(try summary(#""summary":"Tags <i>-, <b>- und &amp;\n  more""#) == "Tags <i>-, <b>- und &amp; more")
        #expect(try summary(#""content_text":"a <b>  b""#) == "a <b> b")
        #expect(try summary(#""content_html":"<p>a <b>b</b> &amp; c</p>""#) == "a b & c")
        // A summary of nothing but (Unicode) whitespace is none: the text comes next.
        #expect(try summary(#""summary":" \u00a0\u2028 ","content_text":" x …  y…\t""#) == "x … y…")
    }

    /// The fold the parser must match: every run of Unicode White_Space as one space, trimmed,
    /// written over scalars (the parser folds UTF-8 bytes).
    static func referenceFold(_ text: String) -> String {
        text.unicodeScalars.split { $0.properties.isWhitespace }.map { String(String.UnicodeScalarView($0)) }
            .joined(separator: " ")
    }

    @Test("whitespace folding over UTF-8 bytes treats exactly Unicode's White_Space characters as spaces")
    func byteFoldMatchesUnicodeWhitespace() throws {
        // Every White_Space character, and neighbours sharing their first UTF-8 bytes that are not.
        let spaces: [Unicode.Scalar] = (0...0x3000).compactMap(Unicode.Scalar.init).filter { $0.properties.isWhitespace }
        #expect(spaces.count == 25)
        // U+000B and U+000C cannot appear in XML 1.0.
        let xmlSpaces = spaces.filter { $0.value != 0x0B && $0.value != 0x0C }
        let others: [Unicode.Scalar] = ["\u{84}", "\u{A1}", "\u{1681}", "\u{200B}", "\u{2027}", "\u{202A}", "\u{2030}", "\u{205E}", "\u{3001}", "é", "€", "Ж"]
        var titles: [String] = []
        for space in xmlSpaces {
            for other in others {
                titles.append(" \(space)x\(other)\(space)\(space)\(other)y\(space)")
            }
        }
        let items = titles.enumerated().map { index, title in
            "<item><guid>\(index)</guid><title>\(title)</title><description>\(title)&amp;</description></item>"
        }.joined()
        let document = try FeedDocument.parse(Data(Self.rss(items).utf8), url: Self.url)
        #expect(document.entries.count == titles.count)
        for (entry, title) in zip(document.entries, titles) {
            #expect(entry.title == Self.referenceFold(title), "\(title.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(entry.summary == Self.referenceFold(title + "&"))
        }
    }
}
