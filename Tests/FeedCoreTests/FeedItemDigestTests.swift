import FeedCore
import Foundation
import Testing

@Suite("FeedItem: content digest and dropping the raw JSON")
struct FeedItemDigestTests {
    static let item = FeedItem(
        id: "test:1", title: "one", summary: "first", url: "https://example.test/1",
        author: FeedAuthor(name: "ann"), published: Date(timeIntervalSince1970: 1_700_000_000),
        raw: Data(#"{"id":1,"name":"one","extra":"kept in the digest"}"#.utf8))

    @Test("dropRaw keeps the digest of the item as it came, raw JSON included")
    func dropKeepsDigest() {
        var item = Self.item
        let digest = item.contentDigest
        item.dropRaw()
        #expect(item.raw == nil)
        #expect(item.contentDigest == digest)
        var bare = Self.item
        bare.raw = nil
        #expect(bare.contentDigest != digest, "without raw the digest differs: the kept one is not recomputed")
    }

    @Test("Changing any field after dropRaw gives the digest of the item as it now is")
    func changeClearsKeptDigest() {
        let changes: [(inout FeedItem) -> Void] = [
            { $0.id = "test:2" }, { $0.title = "two" }, { $0.summary = nil }, { $0.url = "https://example.test/2" },
            { $0.author = FeedAuthor(name: "bob") }, { $0.imageURL = "https://example.test/i.png" },
            { $0.published = nil }, { $0.updated = Date(timeIntervalSince1970: 1) }, { $0.raw = Data("{}".utf8) },
        ]
        for change in changes {
            var item = Self.item
            item.dropRaw()
            change(&item)
            var fresh = FeedItem(
                id: item.id, title: item.title, summary: item.summary, url: item.url, author: item.author,
                imageURL: item.imageURL, published: item.published, updated: item.updated, raw: item.raw)
            #expect(item.contentDigest == fresh.contentDigest)
            fresh.title += "!"
            #expect(item.contentDigest != fresh.contentDigest)
        }
    }

    @Test("An item without raw JSON is left as it is")
    func withoutRaw() {
        var item = Self.item
        item.raw = nil
        let before = item
        item.dropRaw()
        #expect(item == before)
        #expect(item.contentDigest == before.contentDigest)
    }
}
