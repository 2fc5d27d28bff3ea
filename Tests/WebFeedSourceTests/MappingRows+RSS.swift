import FeedCore
import Foundation
import WebFeedSource

/// RSS 0.9x/2.0 rows, with the Dublin Core, DCMI terms and `content:` modules.
extension MappingRow {
    static let rssRows: [MappingRow] = [
        MappingRow(
            name: "RSS 2.0: guid, title, link, description, pubDate, author, category",
            format: .rss2,
            document: rss(
                """
                <item><guid isPermaLink="false">post-1</guid><title>Hello &lt;b&gt;world&lt;/b&gt;</title>
                <link>/blog/hello</link><description>&lt;p&gt;First &amp;amp; best&lt;/p&gt;</description>
                <pubDate>Sat, 13 Dec 2003 18:30:02 GMT</pubDate><author>jo@example.org (Jo Smith)</author>
                <category>news</category><category>swift</category><category>news</category></item>
                """),
            expected: [
                FeedEntry(
                    guid: "post-1", title: "Hello world", link: "https://feeds.example.org/blog/hello",
                    published: date("2003-12-13T18:30:02Z"), authors: [author("Jo Smith")], categories: ["news", "swift"],
                    summary: "First & best")
            ],
            feedparser: .differs("feedparser keeps inline markup in titles (`Hello <b>world</b>`, sanitised); feedagg's are plain text")),
        MappingRow(
            name: "RSS 0.91: title, link, description",
            format: .rss2,
            document: rss(
                "<item><title>Old</title><link>https://feeds.example.org/old</link><description>Plain</description></item>",
                version: "0.91"),
            expected: [FeedEntry(title: "Old", link: "https://feeds.example.org/old", summary: "Plain")]),
        MappingRow(
            name: "RSS guid without isPermaLink (permalink by default) is the link when there is no link",
            format: .rss2,
            document: rss(
                """
                <item><title>A</title><guid>https://feeds.example.org/a</guid></item>
                <item><title>B</title><guid isPermaLink="true">https://feeds.example.org/b</guid></item>
                <item><title>C</title><guid>https://feeds.example.org/c</guid><link>https://feeds.example.org/c.html</link></item>
                """),
            expected: [
                FeedEntry(guid: "https://feeds.example.org/a", title: "A", link: "https://feeds.example.org/a"),
                FeedEntry(guid: "https://feeds.example.org/b", title: "B", link: "https://feeds.example.org/b"),
                FeedEntry(guid: "https://feeds.example.org/c", title: "C", link: "https://feeds.example.org/c.html"),
            ]),
        MappingRow(
            name: "RSS guid isPermaLink=\"false\", or not an http(s) URL, is no link",
            format: .rss2,
            document: rss(
                """
                <item><title>A</title><guid isPermaLink="false">https://feeds.example.org/a</guid></item>
                <item><title>B</title><guid>tag:example.org,2003:b</guid></item>
                """),
            expected: [
                FeedEntry(guid: "https://feeds.example.org/a", title: "A"),
                FeedEntry(guid: "tag:example.org,2003:b", title: "B"),
            ],
            feedparser: .differs("feedparser makes any permalink guid the link, `tag:` URIs included")),
        MappingRow(
            name: "RSS atom:link rel=alternate when there is no link; link first",
            format: .rss2,
            document: rss(
                """
                <item><guid isPermaLink="false">urn:1</guid><atom:link rel="alternate" href="https://feeds.example.org/1"/></item>
                <item><guid isPermaLink="false">urn:2</guid><atom:link href="https://feeds.example.org/2.atom"/>\
                <link>https://feeds.example.org/2</link></item>
                <item><guid isPermaLink="false">urn:3</guid><link>https://feeds.example.org/3</link>\
                <atom:link rel="alternate" href="https://feeds.example.org/3.atom"/></item>
                """),
            expected: [
                FeedEntry(guid: "urn:1", link: "https://feeds.example.org/1"),
                FeedEntry(guid: "urn:2", link: "https://feeds.example.org/2"),
                FeedEntry(guid: "urn:3", link: "https://feeds.example.org/3"),
            ],
            feedparser: .differs("feedparser keeps the last of `link` and `atom:link` (entry 3: `3.atom`)")),
        MappingRow(
            name: "RSS enclosure: the first image/* one is the image",
            format: .rss2,
            document: rss(
                """
                <item><guid>urn:e</guid><enclosure url="https://cdn.example.org/ep.mp3" type="audio/mpeg" length="1"/>
                <enclosure url="/covers/ep.jpg" type="image/jpeg" length="1"/></item>
                """),
            expected: [FeedEntry(guid: "urn:e", imageURL: "https://feeds.example.org/covers/ep.jpg")],
            feedparser: .differs("feedparser lists every enclosure and picks no image")),
        MappingRow(
            name: "dc:title is the title when there is no title; title first",
            format: .rss2,
            document: rss(
                """
                <item><guid>urn:1</guid><dc:title>From DC</dc:title></item>
                <item><guid>urn:2</guid><dc:title>From DC</dc:title><title>Own</title></item>
                <item><guid>urn:3</guid><title>Own</title><dc:title>From DC</dc:title></item>
                """),
            expected: [
                FeedEntry(guid: "urn:1", title: "From DC"), FeedEntry(guid: "urn:2", title: "Own"),
                FeedEntry(guid: "urn:3", title: "Own"),
            ],
            feedparser: .differs("feedparser keeps the first of `title` and `dc:title` in document order")),
        MappingRow(
            name: "dc:creator (every one), before dc:author, itunes:author, dc:contributor; author first",
            format: .rss2,
            document: rss(
                """
                <item><guid>urn:1</guid><dc:contributor>Ed</dc:contributor><itunes:author>Pod</itunes:author>\
                <dc:author>Writer</dc:author><dc:creator>Ann</dc:creator><dc:creator>Bob</dc:creator></item>
                <item><guid>urn:2</guid><dc:creator>Ann</dc:creator><author>jo@example.org (Jo)</author></item>
                <item><guid>urn:3</guid><dc:contributor>Ed</dc:contributor><itunes:author>Pod</itunes:author></item>
                <item><guid>urn:4</guid><dc:contributor>Ed</dc:contributor><dc:author>Writer</dc:author></item>
                <item><guid>urn:5</guid><dc:contributor>Ed</dc:contributor></item>
                <item><guid>urn:6</guid><author>jo@example.org (Jo)</author><dc:creator>Ann</dc:creator></item>
                """),
            expected: [
                FeedEntry(guid: "urn:1", authors: [author("Ann"), author("Bob")]),
                FeedEntry(guid: "urn:2", authors: [author("Jo")]),
                FeedEntry(guid: "urn:3", authors: [author("Pod")]),
                FeedEntry(guid: "urn:4", authors: [author("Writer")]),
                FeedEntry(guid: "urn:5", authors: [author("Ed")]),
                FeedEntry(guid: "urn:6", authors: [author("Jo")]),
            ],
            feedparser: .differs(
                "feedparser keeps the last of `author`, `dc:creator`, `dc:author`, `itunes:author`; "
                    + "`dc:contributor` goes to `contributors` only")),
        MappingRow(
            name: "dcterms:issued, dc:date, dcterms:created as published; pubDate first",
            format: .rss2,
            document: rss(
                """
                <item><guid>urn:1</guid><dc:date>2003-12-13T18:30:02Z</dc:date></item>
                <item><guid>urn:2</guid><dc:date>2003-12-13T18:30:02Z</dc:date><pubDate>Sun, 14 Dec 2003 08:00:00 +0100</pubDate></item>
                <item><guid>urn:3</guid><dcterms:created>2003-12-01</dcterms:created><dcterms:issued>2003-12-02</dcterms:issued></item>
                <item><guid>urn:4</guid><dcterms:issued>2003-12-02</dcterms:issued><dc:date>2003-12-03</dc:date></item>
                <item><guid>urn:5</guid><dcterms:created>2003-12-01</dcterms:created><pubDate>not a date</pubDate></item>
                <item><guid>urn:6</guid><pubDate>Sun, 14 Dec 2003 08:00:00 +0100</pubDate><dc:date>2003-12-13T18:30:02Z</dc:date></item>
                """),
            expected: [
                FeedEntry(guid: "urn:1", published: date("2003-12-13T18:30:02Z")),
                FeedEntry(guid: "urn:2", published: date("2003-12-14T07:00:00Z")),
                FeedEntry(guid: "urn:3", published: date("2003-12-02T00:00:00Z")),
                FeedEntry(guid: "urn:4", published: date("2003-12-02T00:00:00Z")),
                FeedEntry(guid: "urn:5", published: date("2003-12-01T00:00:00Z")),
                FeedEntry(guid: "urn:6", published: date("2003-12-14T07:00:00Z")),
            ],
            feedparser: .differs(
                "feedparser: `dc:date` is `updated`, `dcterms:created` only `created`, so entry 5 (an unreadable "
                    + "`pubDate`, a `dcterms:created`) has no date there")),
        MappingRow(
            name: "dcterms:modified is updated",
            format: .rss2,
            document: rss("<item><guid>urn:1</guid><dcterms:modified>2003-12-13T18:30Z</dcterms:modified></item>"),
            expected: [FeedEntry(guid: "urn:1", updated: date("2003-12-13T18:30:00Z"))]),
        MappingRow(
            name: "dc:subject is a category",
            format: .rss2,
            document: rss("<item><guid>urn:1</guid><category>a</category><dc:subject>b</dc:subject><dc:subject>a</dc:subject></item>"),
            expected: [FeedEntry(guid: "urn:1", categories: ["a", "b"])]),
        MappingRow(
            name: "summary: description, dc:description, content:encoded, itunes:summary, itunes:subtitle, media:description",
            format: .rss2,
            document: rss(
                """
                <item><guid>urn:1</guid><content:encoded><![CDATA[<p>Full</p>]]></content:encoded><description>Short</description></item>
                <item><guid>urn:2</guid><content:encoded><![CDATA[<p>Full <b>text</b></p>]]></content:encoded>\
                <dc:description>DC</dc:description></item>
                <item><guid>urn:3</guid><itunes:summary>Sum</itunes:summary><content:encoded><![CDATA[<p>Full</p>]]></content:encoded></item>
                <item><guid>urn:4</guid><itunes:subtitle>Sub</itunes:subtitle><itunes:summary>Sum</itunes:summary></item>
                <item><guid>urn:5</guid><media:description>Media</media:description><itunes:subtitle>Sub</itunes:subtitle></item>
                <item><guid>urn:6</guid><media:description>Media &amp; more</media:description><description>  </description></item>
                <item><guid>urn:7</guid><description>Short</description><content:encoded><![CDATA[<p>Full</p>]]></content:encoded></item>
                """),
            expected: [
                FeedEntry(guid: "urn:1", summary: "Short"),
                FeedEntry(guid: "urn:2", summary: "DC"),
                FeedEntry(guid: "urn:3", summary: "Full"),
                FeedEntry(guid: "urn:4", summary: "Sum"),
                FeedEntry(guid: "urn:5", summary: "Sub"),
                FeedEntry(guid: "urn:6", summary: "Media & more"),
                FeedEntry(guid: "urn:7", summary: "Short"),
            ],
            feedparser: .differs(
                "feedparser's `summary` is `description`, `dc:description`, `itunes:summary` or `media:description`, "
                    + "`content:encoded` only without them (entry 3: `Sum`); `itunes:subtitle` is `subtitle`")),
        MappingRow(
            name: "xml:base: RSS links, enclosures and media resolved against the nearest xml:base, then the document URL",
            format: .rss2,
            document: rss(
                """
                <item xml:base="https://cdn.example.org/2003/"><guid>urn:1</guid><link>post.html</link>\
                <media:thumbnail url="thumb.jpg"/></item>
                <item><guid>urn:2</guid><link>../other.html</link></item>
                """),
            expected: [
                FeedEntry(
                    guid: "urn:1", link: "https://cdn.example.org/2003/post.html", imageURL: "https://cdn.example.org/2003/thumb.jpg"),
                FeedEntry(guid: "urn:2", link: "https://feeds.example.org/other.html"),
            ],
            feedparser: .differs("feedparser resolves the links alike but leaves `media:thumbnail` URLs as written")),
    ]
}
