import FeedCore
import FeedaggTesting
import Foundation
import PhotosSource
import Testing

// Real 500px responses from ../shared/realworld decoded and mapped.

@Suite("500px real-world samples", .enabled(if: RepositoryPaths.hasRealworld, Comment(rawValue: RepositoryPaths.realworldUnavailableReason)))
struct FiveHundredPxRealworldTests {
    @Test(
        "real envelopes: 20 photos each, totals read, every item linked and dated",
        arguments: ["abstract.json", "black-and-white.json", "concert.json", "family.json", "landscapes.json", "nature.json"])
    func envelopes(_ name: String) throws {
        let data = try Realworld.fiveHundredPx(name)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let photos = try #require(object["photos"] as? [Any])
        let source = try FiveHundredPxSource.make([])
        let decoded = try source.decodePage(try FetchedPage.sample(data, at: "https://api.500px.com/v1/photos?feature=popular&page=1&rpp=20"))
        #expect(decoded.items.count == photos.count)
        #expect(decoded.totals?.currentPage == object["current_page"] as? Int)
        #expect(decoded.totals?.totalPages == object["total_pages"] as? Int)
        #expect(decoded.totals?.totalItems == object["total_items"] as? Int)
        for item in decoded.items {
            #expect(item.url?.hasPrefix("https://500px.com/photo/") == true)
            #expect(item.imageURL?.hasPrefix("https://") == true)
            #expect(item.published != nil)
            #expect(item.author != nil)
            #expect(item.summary.map { !$0.contains("<a ") && $0.count <= 200 } ?? true)
        }
    }

    @Test("abstract.json: first photo mapped field by field; null descriptions give no summary")
    func abstract() throws {
        let decoded = try FiveHundredPxSource.make([]).decodePage(try FetchedPage.sample(try Realworld.fiveHundredPx("abstract.json")))
        #expect(decoded.totals == PageTotals(currentPage: 1, totalPages: 48, totalItems: 954))
        let first = decoded.items[0]
        #expect(first.id == "photos.500px:230363763")
        #expect(first.title == "Sprinkenhof Spiral Staircase")
        #expect(first.summary == #"The spiral Staircase in the "Sprinkenhof" in Hamburg, Germany."#)
        #expect(first.url == "https://500px.com/photo/230363763/sprinkenhof-spiral-staircase-by-tobias-gawrisch")
        #expect(first.author?.name == "Tobias Gawrisch")
        #expect(first.author?.url == "https://500px.com/xplor-creativity")
        #expect(first.published == ISO8601.date(from: "2017-10-02T20:56:46Z"))
        let undescribed = try #require(decoded.items.first { $0.id == "photos.500px:230359523" })
        #expect(undescribed.summary == nil)
    }

    @Test("photos.json, a bare array, is rejected with a clear error")
    func bareArray() throws {
        let source = try FiveHundredPxSource.make([])
        let failure = try thrownError(PageDecodeError.self) {
            _ = try source.decodePage(try FetchedPage.sample(try Realworld.fiveHundredPx("photos.json")))
        }
        #expect(failure.path == "$")
        #expect(failure.description.hasPrefix("expected the 500px envelope object"))
        #expect(failure.description.hasSuffix("found a bare array at $"))
    }
}
