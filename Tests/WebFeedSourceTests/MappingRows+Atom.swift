import FeedCore
import Foundation
import WebFeedSource

/// Atom 1.0 and Atom 0.3 rows.
extension MappingRow {
    static let atomRows: [MappingRow] = [
        MappingRow(
            name: "Atom 1.0: id, title, link, published, updated, author name/uri, category, summary",
            format: .atom,
            document: atom(
                """
                <entry><id>urn:1</id><title type="html">&lt;b&gt;Bold&lt;/b&gt; &amp;amp; more</title>
                <link rel="edit" href="/edit/1"/><link rel="alternate" type="text/html" href="/blog/1"/>
                <link rel="alternate" href="/blog/1-again"/>
                <published>2003-12-13T18:30:02-05:00</published><updated>2003-12-14T18:30:02.25Z</updated>
                <author><name>Ann</name><uri>/ann</uri><email>ann@example.org</email></author>
                <author><email>bob@example.org</email></author>
                <category term="t1" label="Label one"/><category term="t2"/>
                <summary>Plain &lt;i&gt; text</summary><content type="html">&lt;p&gt;Full&lt;/p&gt;</content></entry>
                """),
            expected: [
                FeedEntry(
                    guid: "urn:1", title: "Bold & more", link: "https://feeds.example.org/blog/1",
                    published: date("2003-12-13T23:30:02Z"), updated: Date(timeIntervalSince1970: 1_071_426_602.25),
                    authors: [author("Ann", url: "https://feeds.example.org/ann"), author("bob@example.org")],
                    categories: ["Label one", "t2"], summary: "Plain <i> text")
            ],
            feedparser: .differs(
                "feedparser keeps the last `rel=\"alternate\"` link and the title's markup, tags by `term` "
                    + "(not `label`), and one `author` (`Ann (bob@example.org)`)")),
        MappingRow(
            name: "Atom 1.0: content (html, text, xhtml) when there is no summary; src content is none",
            format: .atom,
            document: atom(
                """
                <entry><id>urn:1</id><content type="html">&lt;p&gt;One &amp;amp; two&lt;/p&gt;</content></entry>
                <entry><id>urn:2</id><content>a &lt; b</content></entry>
                <entry><id>urn:3</id><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>X</p><p>Y</p></div></content></entry>
                <entry><id>urn:4</id><content src="https://cdn.example.org/4" type="text/html"/></entry>
                """),
            expected: [
                FeedEntry(guid: "urn:1", summary: "One & two"),
                FeedEntry(guid: "urn:2", summary: "a < b"),
                FeedEntry(guid: "urn:3", summary: "X Y"),
                FeedEntry(guid: "urn:4"),
            ]),
        MappingRow(
            name: "Atom 1.0: the feed's author for entries without one; dc:creator before it",
            format: .atom,
            document: atom(
                """
                <entry><id>urn:1</id></entry>
                <entry><id>urn:2</id><author><name>Own</name></author></entry>
                <entry><id>urn:3</id><dc:creator>Creator</dc:creator></entry>
                """,
                feed: "<author><name>Feed Author</name><uri>https://feeds.example.org/me</uri></author>"),
            expected: [
                FeedEntry(guid: "urn:1", authors: [author("Feed Author", url: "https://feeds.example.org/me")]),
                FeedEntry(guid: "urn:2", authors: [author("Own")]),
                FeedEntry(guid: "urn:3", authors: [author("Creator")]),
            ],
            feedparser: .differs("feedparser does not copy the feed's author into entries")),
        MappingRow(
            name: "Atom 1.0: link without rel is alternate; image enclosure link and media:thumbnail as image",
            format: .atom,
            document: atom(
                """
                <entry><id>urn:1</id><link href="https://feeds.example.org/1"/>\
                <link rel="enclosure" type="audio/mpeg" href="/a.mp3"/><link rel="enclosure" type="image/png" href="/e.png"/></entry>
                <entry><id>urn:2</id><link rel="enclosure" type="image/png" href="/e.png"/><media:thumbnail url="/t.png"/></entry>
                """),
            expected: [
                FeedEntry(guid: "urn:1", link: "https://feeds.example.org/1", imageURL: "https://feeds.example.org/e.png"),
                FeedEntry(guid: "urn:2", imageURL: "https://feeds.example.org/t.png"),
            ]),
        MappingRow(
            name: "Atom 1.0: dcterms and dc dates after published and updated",
            format: .atom,
            document: atom(
                """
                <entry><id>urn:1</id><dcterms:issued>2003-12-01</dcterms:issued><published>2003-12-02</published>\
                <dcterms:modified>2003-12-03</dcterms:modified></entry>
                <entry><id>urn:2</id><dc:date>2003-12-04</dc:date><updated>2003-12-05</updated><dcterms:modified>2003-12-06</dcterms:modified></entry>
                """),
            expected: [
                FeedEntry(guid: "urn:1", published: date("2003-12-02T00:00:00Z"), updated: date("2003-12-03T00:00:00Z")),
                FeedEntry(guid: "urn:2", published: date("2003-12-04T00:00:00Z"), updated: date("2003-12-05T00:00:00Z")),
            ],
            feedparser: .differs("feedparser keeps the last of `updated` and `dcterms:modified`; `dc:date` is `updated`")),
        MappingRow(
            name: "xml:base: nested xml:base on feed and entry, then the document URL",
            format: .atom,
            document: atom(
                """
                <entry xml:base="2003/"><id>urn:1</id><link href="post.html"/><author><name>A</name><uri>a.html</uri></author></entry>
                <entry xml:base="https://other.example.net/x/"><id>urn:2</id><link href="../y"/></entry>
                """,
                attributes: #" xml:base="https://cdn.example.org/blog/""#),
            expected: [
                FeedEntry(
                    guid: "urn:1", link: "https://cdn.example.org/blog/2003/post.html",
                    authors: [author("A", url: "https://cdn.example.org/blog/2003/a.html")]),
                FeedEntry(guid: "urn:2", link: "https://other.example.net/y"),
            ]),
        MappingRow(
            name: "Atom 0.3: id, title, link rel=alternate, issued, modified, author name/url",
            format: .atom03,
            document: atom03(
                """
                <entry><id>tag:example.org,2003:1</id><title>Old Atom</title>
                <link rel="service.edit" type="application/x.atom+xml" href="/edit/1"/>
                <link rel="alternate" type="text/html" href="/2003/12/13/old"/>
                <issued>2003-12-13T08:29:29-04:00</issued><modified>2003-12-13T18:30:02Z</modified>
                <author><name>Mark</name><url>http://diveintomark.org/</url><email>m@example.org</email></author>
                <summary>Short summary</summary></entry>
                """),
            expected: [
                FeedEntry(
                    guid: "tag:example.org,2003:1", title: "Old Atom", link: "https://feeds.example.org/2003/12/13/old",
                    published: date("2003-12-13T12:29:29Z"), updated: date("2003-12-13T18:30:02Z"),
                    authors: [author("Mark", url: "http://diveintomark.org/")], summary: "Short summary")
            ]),
        MappingRow(
            name: "Atom 0.3: created when there is no issued; the feed's author",
            format: .atom03,
            document: atom03(
                "<entry><id>urn:2</id><title>T</title><created>2003-12-12T10:00:00Z</created></entry>",
                feed: "<author><name>Feed Author</name></author>"),
            expected: [
                FeedEntry(guid: "urn:2", title: "T", published: date("2003-12-12T10:00:00Z"), authors: [author("Feed Author")])
            ],
            feedparser: .differs("feedparser keeps `created` apart (no published or updated date) and does not copy the feed's author")),
        MappingRow(
            name: "Atom 0.3: content mode=\"escaped\", \"base64\", \"xml\"; summary first",
            format: .atom03,
            document: atom03(
                """
                <entry><id>urn:e</id><content type="text/html" mode="escaped">&lt;p&gt;Escaped &amp;amp; HTML&lt;/p&gt;</content></entry>
                <entry><id>urn:b</id><content type="text/html" mode="base64">PHA+QmFzZSA2NDwvcD4=</content></entry>
                <entry><id>urn:x</id><content type="application/xhtml+xml" mode="xml"><div xmlns="http://www.w3.org/1999/xhtml">\
                <p>Inline</p><p>XML</p></div></content></entry>
                <entry><id>urn:p</id><content type="text/plain" mode="escaped">a &lt; b</content></entry>
                <entry><id>urn:s</id><summary>Sum</summary><content type="text/html" mode="escaped">&lt;p&gt;Body&lt;/p&gt;</content></entry>
                """),
            expected: [
                FeedEntry(guid: "urn:e", summary: "Escaped & HTML"),
                FeedEntry(guid: "urn:b", summary: "Base 64"),
                FeedEntry(guid: "urn:x", summary: "Inline XML"),
                FeedEntry(guid: "urn:p", summary: "a < b"),
                FeedEntry(guid: "urn:s", summary: "Sum"),
            ]),
    ]
}
