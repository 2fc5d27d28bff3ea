import FeedCore
import Foundation
import WebFeedSource

/// `media:` and `itunes:` rows, and RSS 1.0's.
extension MappingRow {
    static let extensionRows: [MappingRow] = [
        MappingRow(
            name: "image: media:thumbnail, then an image enclosure, then an image media:content, then itunes:image",
            format: .rss2,
            document: rss(
                """
                <item><guid>urn:1</guid><itunes:image href="/i.jpg"/><media:content url="/c.jpg" medium="image"/>\
                <enclosure url="/e.jpg" type="image/jpeg" length="1"/><media:thumbnail url="/t.jpg"/></item>
                <item><guid>urn:2</guid><itunes:image href="/i.jpg"/><media:content url="/c.jpg" type="image/png"/>\
                <enclosure url="/e.jpg" type="image/jpeg" length="1"/></item>
                <item><guid>urn:3</guid><itunes:image href="/i.jpg"/><media:content url="/v.mp4" type="video/mp4"/>\
                <media:content url="/c.jpg" medium="image"/></item>
                <item><guid>urn:4</guid><itunes:image href="/i.jpg"/></item>
                <item><guid>urn:5</guid><media:thumbnail url="/t.jpg"/><enclosure url="/e.jpg" type="image/jpeg" length="1"/>\
                <media:content url="/c.jpg" medium="image"/><itunes:image href="/i.jpg"/></item>
                """),
            expected: [
                FeedEntry(guid: "urn:1", imageURL: "https://feeds.example.org/t.jpg"),
                FeedEntry(guid: "urn:2", imageURL: "https://feeds.example.org/e.jpg"),
                FeedEntry(guid: "urn:3", imageURL: "https://feeds.example.org/c.jpg"),
                FeedEntry(guid: "urn:4", imageURL: "https://feeds.example.org/i.jpg"),
                FeedEntry(guid: "urn:5", imageURL: "https://feeds.example.org/t.jpg"),
            ],
            feedparser: .differs("feedparser keeps `media_thumbnail`, `media_content`, `enclosures` and `image` apart")),
        MappingRow(
            name: "media:group: thumbnail, media:title and media:description inside it",
            format: .rss2,
            document: rss(
                """
                <item><guid>urn:1</guid><media:group><media:title>Clip</media:title>\
                <media:description type="html">&lt;b&gt;Bold&lt;/b&gt; clip</media:description>\
                <media:content url="https://cdn.example.org/clip.mp4" type="video/mp4">\
                <media:thumbnail url="https://cdn.example.org/clip.jpg"/></media:content></media:group></item>
                """),
            expected: [
                FeedEntry(guid: "urn:1", title: "Clip", imageURL: "https://cdn.example.org/clip.jpg", summary: "Bold clip")
            ]),
        MappingRow(
            name: "media:title is the title only without title and dc:title",
            format: .rss2,
            document: rss(
                """
                <item><guid>urn:1</guid><media:title>Media</media:title><dc:title>DC</dc:title></item>
                <item><guid>urn:2</guid><media:title>Media</media:title><title>Own</title></item>
                <item><guid>urn:3</guid><title>Own</title><media:title>Media</media:title></item>
                """),
            expected: [
                FeedEntry(guid: "urn:1", title: "DC"), FeedEntry(guid: "urn:2", title: "Own"), FeedEntry(guid: "urn:3", title: "Own"),
            ]),
        MappingRow(
            name: "itunes: author, image href, summary, subtitle",
            format: .rss2,
            document: rss(
                """
                <item><guid>urn:ep1</guid><title>Episode 1</title><itunes:author>Ada Lovelace</itunes:author>\
                <itunes:image href="https://cdn.example.org/ep1.jpg"/><itunes:subtitle>Short</itunes:subtitle>\
                <itunes:summary>Long &amp; detailed</itunes:summary></item>
                """),
            expected: [
                FeedEntry(
                    guid: "urn:ep1", title: "Episode 1", authors: [author("Ada Lovelace")],
                    imageURL: "https://cdn.example.org/ep1.jpg", summary: "Long & detailed")
            ]),
        MappingRow(
            name: "RSS 1.0: rdf:about, title, link, description, dc:date, dc:creator, dc:subject",
            format: .rss1,
            document: rdf(
                """
                <item rdf:about="https://feeds.example.org/1"><title>One</title><link>https://feeds.example.org/1.html</link>\
                <description>&lt;i&gt;First&lt;/i&gt;</description><dc:date>2003-12-13T18:30:02+01:00</dc:date>\
                <dc:creator>Ann</dc:creator><dc:subject>rdf</dc:subject></item>
                """),
            expected: [
                FeedEntry(
                    guid: "https://feeds.example.org/1", title: "One", link: "https://feeds.example.org/1.html",
                    published: date("2003-12-13T17:30:02Z"), authors: [author("Ann")], categories: ["rdf"], summary: "First")
            ]),
        MappingRow(
            name: "RSS 1.0: content:encoded, dc:title, dcterms:issued and dcterms:modified",
            format: .rss1,
            document: rdf(
                """
                <item rdf:about="https://feeds.example.org/2"><dc:title>Two</dc:title><link>https://feeds.example.org/2</link>\
                <content:encoded><![CDATA[<p>Body</p>]]></content:encoded>\
                <dcterms:issued>2003-12-13</dcterms:issued><dcterms:modified>2003-12-14T10:00Z</dcterms:modified></item>
                """),
            expected: [
                FeedEntry(
                    guid: "https://feeds.example.org/2", title: "Two", link: "https://feeds.example.org/2",
                    published: date("2003-12-13T00:00:00Z"), updated: date("2003-12-14T10:00:00Z"), summary: "Body")
            ]),
        MappingRow(
            name: "RSS 0.90: items in the my.netscape.com namespace",
            format: .rss1,
            document: rdf(
                "<item><title>Ninety</title><link>https://feeds.example.org/90</link></item>",
                namespace: "http://my.netscape.com/rdf/simple/0.9/"),
            expected: [FeedEntry(title: "Ninety", link: "https://feeds.example.org/90")]),
    ]
}
