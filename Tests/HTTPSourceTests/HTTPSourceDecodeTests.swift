import FeedCore
import Foundation
import HTTPSource
import Testing

/// A declarative feed over `items` with `fields` (and extra lines), for decode tests.
private func feed(items: String = "$.photos", fields: String, extra: String = "") -> String {
    """
    feeds:
      - name: d
        source: http
        base_url: https://api.test/
        url: "{+base_url}/v1/photos"
        pagination: { style: page, total_pages: "$.meta.pages", total_items: "$.meta.count" }
        items: "\(items)"
        fields: \(fields)
    \(extra)
    """
}

@Suite("http source: templates, item mapping and decode errors")
struct HTTPSourceDecodeTests {
    @Test("template variables: scalars, lists, mappings, unset variables and base_url without its trailing slash")
    func templateVariables() throws {
        let yaml = """
            feeds:
              - name: t
                source: http
                base_url: https://api.test/v2/
                url: "{+base_url}/search{?q,tags*,since,per_page}{&opts*}"
                q: a b
                tags: [x, y]
                opts: { sort: new }
                since: ${SINCE}
                items: "$"
                fields: { id: "$.id", title: "$.t" }
            """
        let source = try Declared.source(yaml)
        #expect(source.firstPageURL.absoluteString == "https://api.test/v2/search?q=a%20b&tags=x&tags=y&per_page=30&sort=new")
        #expect(source.pagination.name == "link", "pagination defaults to the Link header")
    }

    @Test("fields: paths, a text template, numbers as text, dates, link resolution, totals")
    func mapping() throws {
        let source = try Declared.source(
            feed(
                fields: #"""
                { id: "$.id", title: "$['the name']", summary: "{description} ({language})", url: "$.links[0]", author: "$.user.login", author_url: "/u/{user.login}", avatar: "$.user.pic", image: "$.img", published: "$.created", updated: "$.changed" }
                """#))
        let page = Declared.page(
            #"""
            {"meta": {"pages": 4, "count": "77"}, "photos": [
              {"id": 10270250, "the name": " Dawn ", "description": "Sea", "language": "Swift", "links": ["https://x.test/p/1"],
               "user": {"login": "ann", "pic": "https://i.test/a.png"}, "img": "/img/1.jpg",
               "created": "2013-05-24T16:15:54Z", "changed": "2020-01-02T03:04:05.5+01:00"},
              {"id": "b-2", "the name": "Dusk", "description": "Hills", "language": null, "user": null, "created": null}
            ]}
            """#, url: "https://api.test/v1/photos?page=2")
        let decoded = try source.decodePage(page)
        #expect(decoded.totals == PageTotals(totalPages: 4, totalItems: 77))
        #expect(decoded.items.count == 2)
        let first = decoded.items[0]
        #expect(first.id == "d:10270250")
        #expect(first.title == "Dawn")
        #expect(first.summary == "Sea (Swift)")
        #expect(first.url == "https://x.test/p/1")
        #expect(first.author == FeedAuthor(name: "ann", url: "https://api.test/u/ann", avatarURL: "https://i.test/a.png"))
        #expect(first.imageURL == "https://api.test/img/1.jpg")
        #expect(first.published == ISO8601.date(from: "2013-05-24T16:15:54Z"))
        #expect(first.updated == ISO8601.date(from: "2020-01-02T02:04:05.5Z"))
        #expect(first.raw.map { String(decoding: $0, as: UTF8.self) }?.hasPrefix(#"{"id": 10270250"#) == true)
        let second = decoded.items[1]
        #expect(second.id == "d:b-2")
        #expect(second.summary == "Hills ()")
        #expect(second.author == nil && second.url == nil && second.published == nil)
    }

    @Test("date formats: unix seconds, unix milliseconds, a pattern")
    func dateFormats() throws {
        let body = #"{"photos": [{"id": 1, "t": "x", "s": 1700000000, "ms": "1700000000500", "p": "2024-03-01 10:20:30"}]}"#
        for (format, field, expected) in [
            ("unix", "$.s", Date(timeIntervalSince1970: 1_700_000_000)),
            ("unix_ms", "$.ms", Date(timeIntervalSince1970: 1_700_000_000.5)),
            ("'yyyy-MM-dd HH:mm:ss'", "$.p", ISO8601.date(from: "2024-03-01T10:20:30Z")!),
        ] {
            let source = try Declared.source(
                feed(fields: #"{ id: "$.id", title: "$.t", updated: "\#(field)", date_format: \#(format) }"#))
            #expect(try source.decodePage(Declared.page(body)).items.first?.updated == expected, "\(format)")
        }
    }

    @Test(
        "decode errors name the JSON path",
        arguments: [
            (#"{"photos": {"a": 1}}"#, "$.photos", "expected an array of items, found an object"),
            (#"{"other": []}"#, "$.photos", "expected an array of items, found nothing (absent or null)"),
            (#"[1, 2]"#, "$", "expected an object with member 'photos' for $.photos, found an array"),
            (#"{"photos": [{"id": 1, "t": "x"}, {"t": "y"}]}"#, "$.photos[1].id", "the item has no id (fields.id is absent, null or empty)"),
            (#"{"photos": [{"id": 1, "t": {"a": 1}}]}"#, "$.photos[0].t", "expected a string or number, found an object"),
            (#"{"photos": [{"id": 1, "t": "x", "u": "yesterday"}]}"#, "$.photos[0].u", "expected an ISO 8601 timestamp for fields.updated, found 'yesterday'"),
            (#"{"meta": {"pages": "many"}, "photos": []}"#, "$.meta.pages", "expected an integer, found 'many'"),
            (#"{"photos": [1, 2,]}"#, "$", "malformed JSON: expected a value at byte 17"),
        ])
    func decodeErrors(_ body: String, _ path: String, _ message: String) throws {
        let source = try Declared.source(feed(fields: #"{ id: "$.id", title: "$.t", updated: "$.u" }"#))
        #expect(throws: PageDecodeError(path: path, message)) { try source.decodePage(Declared.page(body)) }
    }

    @Test("an HTML error page served as 200 is refused")
    func html() throws {
        let source = try Declared.source(feed(fields: #"{ id: "$.id", title: "$.t" }"#))
        var page = Declared.page("<html></html>")
        page.response.headers = ["Content-Type": "text/html"]
        #expect(throws: PageDecodeError.self) { try source.decodePage(page) }
    }

    @Test("items at an index path keep a re-serialised raw copy")
    func indexPath() throws {
        let source = try Declared.source(feed(items: "$.pages[1]", fields: #"{ id: "$.id", title: "$.t" }"#))
        let decoded = try source.decodePage(Declared.page(#"{"pages": [[], [{"id": 7, "t": "seven", "x": [1.50]}]]}"#))
        #expect(decoded.items.map(\.id) == ["d:7"])
        #expect(decoded.items.first?.raw.map { String(decoding: $0, as: UTF8.self) } == #"{"id":7,"t":"seven","x":[1.50]}"#)
    }
}

@Suite("http source: credentials")
struct HTTPSourceCredentialTests {
    @Test("a token in defaults never reaches a declared feed; its own token and key-like headers are credentials")
    func tokens() throws {
        let yaml = """
            defaults:
              token: ghp_for_github
            feeds:
              - name: plain
                source: http
                base_url: https://api.test
                url: "{+base_url}/x"
                items: "$"
                fields: { id: "$.id", title: "$.t" }
              - name: own
                source: http
                base_url: https://api.test
                url: "{+base_url}/x"
                token: own-token
                headers: { X-Api-Key: k, Accept: application/vnd.x+json, User-Agent: ua }
                items: "$"
                fields: { id: "$.id", title: "$.t" }
            """
        let feeds = try Declared.feeds(yaml)
        #expect(feeds[0].source.credentialHeaders.fields.isEmpty)
        #expect(feeds[1].source.credentialHeaders == ["Authorization": "Bearer own-token", "X-Api-Key": "k"])
        #expect(feeds[1].source.requestHeaders == ["Accept": "application/vnd.x+json", "User-Agent": "ua"])
    }
}

