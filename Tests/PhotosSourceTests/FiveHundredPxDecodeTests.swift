import FeedCore
import FeedaggTesting
import Foundation
import PhotosSource
import Testing

// photos.500px envelopes decoded and mapped: inline bodies, totals, located errors.

@Suite("photos.500px")
struct FiveHundredPxDecodeTests {
    let photosURL = "https://api.500px.com/v1/photos?feature=editors&page=2&rpp=20"

    @Test("an envelope: items from photos, totals from the envelope")
    func envelopeBody() throws {
        let source = try FiveHundredPxSource.make([("feature", "editors")])
        let decoded = try source.decodePage(try FetchedPage.sample(envelope([photoJSON(), photoJSON(id: 7)]), at: photosURL))
        #expect(decoded.items.count == 2)
        #expect(decoded.totals == PageTotals(currentPage: 2, totalPages: 100, totalItems: 2000))
        let item = decoded.items[0]
        #expect(item.id == "photos.500px:123456789")
        #expect(item.title == "Golden Hour")
        #expect(item.summary == "Tokyo at dusk")
        #expect(item.url == "https://500px.com/photo/123456789")
        #expect(item.imageURL == "https://drscdn.500px.org/photo/123456789/q%3D80_m%3D2000/v2?sig=ab")
        #expect(item.author == FeedAuthor(
            name: "Fast4242", url: "https://500px.com/fast4242",
            avatarURL: "https://drscdn.500px.org/user_avatar/4242/q%3D85_w%3D300_h%3D300/v2"))
        #expect(item.published == ISO8601.date(from: "2017-10-02T18:43:27Z"))
        #expect(item.updated == nil)
        #expect(source.ordering == .unordered)
    }

    @Test("an envelope without total_pages (absent or null) is an error at $.total_pages")
    func missingTotals() throws {
        let source = try FiveHundredPxSource.make([])
        for body in [envelope([photoJSON()], totals: false), #"{"current_page":1,"total_pages":null,"photos":[]}"#] {
            let failure = try thrownError(PageDecodeError.self) { _ = try source.decodePage(try FetchedPage.sample(body, at: photosURL)) }
            #expect(failure.path == "$.total_pages")
            #expect(failure.message == "expected the page count (an integer), found nothing (absent or null)")
        }
    }

    @Test("a relative image_url is resolved against the feed's base_url")
    func relativeImage() throws {
        let source = try FiveHundredPxSource.make([], baseURL: "http://127.0.0.1:8765/api")
        let body = envelope([
            photoJSON(id: 1, imageURL: #""/photo/1/w%3D440/v2?sig=1""#),
            photoJSON(id: 2, imageURL: #""//drscdn.500px.org/photo/2/v2""#),
            photoJSON(id: 3, imageURL: #"["https://a.example/3/small","https://a.example/3/large"]"#),
            photoJSON(id: 4, imageURL: "null"),
        ])
        let items = try source.decodePage(try FetchedPage.sample(body)).items
        #expect(items.map(\.imageURL) == [
            "http://127.0.0.1:8765/photo/1/w%3D440/v2?sig=1", "http://drscdn.500px.org/photo/2/v2",
            "https://a.example/3/large", "https://drscdn.500px.org/photo/x",
        ])
    }

    @Test("null description → no summary; empty name → Untitled; HTML → one line of text")
    func text() throws {
        let source = try FiveHundredPxSource.make([])
        let long = String(repeating: "word ", count: 80)
        let body = envelope([
            photoJSON(id: 1, name: "\"\"", description: "null"),
            photoJSON(id: 2, name: "\"Nini&mdash;秀\"", description: #""<a href=\"http://x.example\">VIDEO\n TUTORIALS</a><br/>Order --&gt; presets &amp; more""#),
            photoJSON(id: 3, name: "null", description: "\"\(long)\""),
            photoJSON(id: 4, description: "\"   \""),
        ])
        let items = try source.decodePage(try FetchedPage.sample(body)).items
        #expect(items[0].title == "Untitled")
        #expect(items[0].summary == nil)
        #expect(items[1].title == "Nini\u{2014}秀")
        #expect(items[1].summary == "VIDEO TUTORIALS Order --> presets & more")
        #expect(items[2].title == "Untitled")
        let summary = try #require(items[2].summary)
        #expect(summary.count <= 200)
        #expect(summary.hasSuffix("word\u{2026}"))
        #expect(items[3].summary == nil)
    }

    @Test("a bare array body is rejected at $ naming the expected envelope")
    func bareArray() throws {
        let source = try FiveHundredPxSource.make([])
        let failure = try thrownError(PageDecodeError.self) { _ = try source.decodePage(try FetchedPage.sample("[\(photoJSON())]")) }
        #expect(failure.path == "$")
        #expect(failure.message == "expected the 500px envelope object {current_page, total_pages, total_items, photos: [...]}, found a bare array")
    }

    @Test("an envelope without photos, or with a null id, is an error with its path")
    func badEnvelope() throws {
        let source = try FiveHundredPxSource.make([])
        let missing = try thrownError(PageDecodeError.self) { _ = try source.decodePage(try FetchedPage.sample(#"{"current_page":1}"#)) }
        #expect(missing.path == "$")
        #expect(missing.message.contains("photos"))
        let nullID = try thrownError(PageDecodeError.self) {
            _ = try source.decodePage(try FetchedPage.sample(envelope([photoJSON(), photoJSON().replacingOccurrences(of: #""id":123456789"#, with: #""id":null"#)])))
        }
        #expect(nullID.path == "$.photos[1].id")
        let textTotals = try thrownError(PageDecodeError.self) {
            _ = try source.decodePage(try FetchedPage.sample(#"{"current_page":"1","photos":[]}"#))
        }
        #expect(textTotals.path == "$.current_page")
    }

    @Test("an HTML page served with status 200 is an error")
    func htmlBody() throws {
        let source = try FiveHundredPxSource.make([])
        let failure = try thrownError(PageDecodeError.self) {
            _ = try source.decodePage(try .sample("<html><body>Service Unavailable</body></html>", contentType: "text/html; charset=utf-8"))
        }
        #expect(failure.path == "$")
    }

    // Reproduced with the photos-500px fuzz target (make fuzz): tag stripping searched for a `>`
    // after every unclosed `<a`, so a 200 kB description took minutes to decode.
    @Test("a long description full of unclosed tags decodes in linear time", .timeLimit(.minutes(1)))
    func unclosedTags() throws {
        let source = try FiveHundredPxSource.make([])
        let unclosed = String(repeating: "<a", count: 100_000)
        let body = envelope([
            photoJSON(id: 1, description: "\"\(unclosed)\""),
            photoJSON(id: 2, description: #""<b>bold</b> then <i unclosed""#),
        ])
        let items = try source.decodePage(try FetchedPage.sample(body)).items
        let summary = try #require(items[0].summary)
        #expect(summary.count <= 200)
        #expect(summary.hasPrefix("<a<a<a"), "an unclosed tag is text, kept as written")
        #expect(items[1].summary == "bold then <i unclosed")
    }
}
