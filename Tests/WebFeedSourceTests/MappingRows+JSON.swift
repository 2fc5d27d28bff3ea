import FeedCore
import Foundation
import WebFeedSource

/// JSON Feed 1.0 and 1.1 rows. feedparser 6 does not read JSON Feed.
extension MappingRow {
    static let jsonRows: [MappingRow] = [
        MappingRow(
            name: "JSON Feed 1.1: id, url, title, summary, date_published, date_modified, authors, tags, image",
            format: .jsonFeed,
            document: json(
                #"""
                {"id": "1", "url": "/blog/1", "title": "  One  ", "summary": "Plain <i> text", "content_html": "<p>Full</p>",
                 "date_published": "2003-12-13T18:30:02+01:00", "date_modified": "2003-12-14T18:30:02Z",
                 "authors": [{"name": "Ann", "url": "https://ann.example.org/", "avatar": "https://ann.example.org/a.png"}, {"url": "https://bob.example.org/"}],
                 "tags": ["a", "b", "a"], "image": "https://cdn.example.org/1.png", "banner_image": "https://cdn.example.org/b.png"}
                """#),
            expected: [
                FeedEntry(
                    guid: "1", title: "One", link: "https://feeds.example.org/blog/1", published: date("2003-12-13T17:30:02Z"),
                    updated: date("2003-12-14T18:30:02Z"),
                    authors: [
                        author("Ann", url: "https://ann.example.org/", avatar: "https://ann.example.org/a.png"),
                        author("https://bob.example.org/", url: "https://bob.example.org/"),
                    ],
                    categories: ["a", "b"], imageURL: "https://cdn.example.org/1.png", summary: "Plain <i> text")
            ],
            feedparser: .differs("feedparser 6 does not read JSON Feed")),
        MappingRow(
            name: "JSON Feed 1.0: author (one object); authors first when both; the feed's authors",
            format: .jsonFeed,
            document: json(
                #"""
                {"id": "1", "author": {"name": "Old"}},
                {"id": "2", "author": {"name": "Old"}, "authors": [{"name": "New"}]},
                {"id": "3", "author": {"name": "Old"}, "authors": []},
                {"id": "4"}
                """#,
                version: "1", feed: #", "author": {"name": "Feed Author"}"#),
            expected: [
                FeedEntry(guid: "1", authors: [author("Old")]),
                FeedEntry(guid: "2", authors: [author("New")]),
                FeedEntry(guid: "3", authors: [author("Old")]),
                FeedEntry(guid: "4", authors: [author("Feed Author")]),
            ],
            feedparser: .differs("feedparser 6 does not read JSON Feed")),
        MappingRow(
            name: "JSON Feed: external_url when there is no url",
            format: .jsonFeed,
            document: json(#"{"id": "1", "external_url": "https://elsewhere.example.net/a"}"#),
            expected: [FeedEntry(guid: "1", link: "https://elsewhere.example.net/a")],
            feedparser: .differs("feedparser 6 does not read JSON Feed")),
        MappingRow(
            name: "JSON Feed: summary, then content_text, then content_html",
            format: .jsonFeed,
            document: json(
                #"""
                {"id": "1", "content_text": "Text <b>", "content_html": "<p>HTML</p>"},
                {"id": "2", "content_html": "<p>HTML &amp; more</p>"},
                {"id": "3", "summary": "", "content_text": "Text"}
                """#),
            expected: [
                FeedEntry(guid: "1", summary: "Text <b>"),
                FeedEntry(guid: "2", summary: "HTML & more"),
                FeedEntry(guid: "3", summary: "Text"),
            ],
            feedparser: .differs("feedparser 6 does not read JSON Feed")),
        MappingRow(
            name: "JSON Feed: image, then banner_image, then an image attachment",
            format: .jsonFeed,
            document: json(
                #"""
                {"id": "1", "banner_image": "/b.png"},
                {"id": "2", "attachments": [{"url": "/a.mp3", "mime_type": "audio/mpeg"}, {"url": "/a.jpg", "mime_type": "image/jpeg"}]}
                """#),
            expected: [
                FeedEntry(guid: "1", imageURL: "https://feeds.example.org/b.png"),
                FeedEntry(guid: "2", imageURL: "https://feeds.example.org/a.jpg"),
            ],
            feedparser: .differs("feedparser 6 does not read JSON Feed")),
    ]
}
