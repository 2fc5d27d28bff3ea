import FeedCore
import Foundation
import Testing

@Suite("Merging feeds into one stream")
struct UnifiedStreamTests {
    func item(_ id: String, _ url: String?, _ day: Int?) -> FeedItem {
        FeedItem(id: id, title: id, url: url, updated: day.map { Date(timeIntervalSince1970: Double($0) * 86_400) })
    }

    @Test("newest first, stable ties in feed order, undated spread evenly in feed order, duplicates once with both feeds")
    func merge() {
        let a = UnifiedStream.Input(feed: "a", source: "s", items: [
            item("a1", "https://x.test/1", 5), item("a2", "https://x.test/2", 9), item("a3", nil, nil), item("a4", "https://x.test/4", 5),
        ])
        let b = UnifiedStream.Input(feed: "b", source: "t", items: [
            item("b1", "HTTPS://X.test/2/", 9), item("b2", "https://x.test/b2", 5), item("b3", nil, nil),
        ])
        let merged = UnifiedStream.merge([a, b])
        // 4 dated (a2, a1, a4, b2); a3 and b3 are each the only undated item of their feed:
        // placed after dated item ⌊1·4/2⌋ = 2, in feed order.
        #expect(merged.map(\.item.id) == ["a2", "a1", "a3", "b3", "a4", "b2"])
        #expect(merged[0].feeds == ["a", "b"])
        #expect(merged[0].feed == "a")
        #expect(merged[1].feeds == ["a"])
    }

    @Test("an undated feed is spread evenly through the dated items")
    func spread() {
        let dated = UnifiedStream.Input(feed: "d", source: "s", items: (0..<10).map { item("d\($0)", nil, 100 - $0) })
        let members = UnifiedStream.Input(feed: "m", source: "t", items: (0..<4).map { item("m\($0)", nil, nil) })
        let ids = UnifiedStream.merge([dated, members]).map(\.item.id)
        // k-th member after dated item ⌊k·10/5⌋ = 2, 4, 6, 8.
        #expect(ids == ["d0", "d1", "m0", "d2", "d3", "m1", "d4", "d5", "m2", "d6", "d7", "m3", "d8", "d9"])
        #expect(UnifiedStream.merge([members]).map(\.item.id) == ["m0", "m1", "m2", "m3"])
    }

    @Test("paging the stream")
    func paging() {
        let entries = UnifiedStream.merge([
            UnifiedStream.Input(feed: "a", source: "s", items: (0..<45).map { item("i\($0)", nil, 100 - $0) })
        ])
        let page = UnifiedStream.page(entries, page: 3, perPage: 20)
        #expect(page.totalItems == 45)
        #expect(page.totalPages == 3)
        #expect(page.entries.map(\.item.id) == (40..<45).map { "i\($0)" })
        #expect(UnifiedStream.page(entries, page: 4, perPage: 20).entries.isEmpty)
    }

    @Test("canonical URLs", arguments: [
        ("https://GitHub.com/facebook/react/", "https://github.com/facebook/react"),
        ("http://github.com:80/a#readme", "https://github.com/a"),
        ("https://x.test/?q=1", "https://x.test?q=1"),
    ])
    func canonical(_ input: String, _ expected: String) {
        #expect(UnifiedStream.canonicalURL(input) == expected)
    }
}

@Suite("ISO 8601 dates")
struct ISO8601Tests {
    @Test("parses the shapes APIs send", arguments: [
        ("2011-01-26T19:01:12Z", 1_296_068_472.0),
        ("2017-10-02T13:43:27-04:00", 1_506_966_207.0),
        ("2017-10-02T17:43:27.250+00:00", 1_506_966_207.25),
        ("2017-10-02 17:43:27+0000", 1_506_966_207.0),
        ("2024-01-31", 1_706_659_200.0),
    ])
    func parse(_ text: String, _ epoch: Double) {
        #expect(ISO8601.date(from: text)?.timeIntervalSince1970 == epoch)
    }

    @Test("rejects garbage", arguments: ["", "yesterday", "2024-13-01T00:00:00Z", "2024-01-01T25:00:00Z", "2024-01-01T00:00:00Zjunk"])
    func reject(_ text: String) {
        #expect(ISO8601.date(from: text) == nil)
    }

    @Test("formats in UTC")
    func format() {
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 1_506_966_207.9)) == "2017-10-02T17:43:27Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -62_167_219_200)) == "0000-01-01T00:00:00Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00Z")
    }

    /// From 1583 on: Foundation's Gregorian calendar switches to the Julian one before October
    /// 1582, where ISO 8601 (and feedagg) count on in the proleptic Gregorian calendar.
    @Test("formats dates as Foundation does")
    func formatLikeFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
        var generator = SystemRandomNumberGenerator()
        let seconds = [0, 59, 60, 3599, 3600, 86_399, 86_400, 951_782_400, 4_107_542_400] + (0..<2000).map { _ in
            Int.random(in: -12_212_553_600..<253_402_300_800, using: &generator)
        }
        for second in seconds {
            let date = Date(timeIntervalSince1970: Double(second) + 0.75)
            #expect(ISO8601.string(from: date) == formatter.string(from: date), "\(second)")
        }
    }
}
