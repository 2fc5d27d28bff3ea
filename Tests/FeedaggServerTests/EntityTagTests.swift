@testable import FeedaggServer
import Testing

// `If-None-Match` compared weakly (RFC 9110 §13.1.2), with or without the gzip representation's
// suffix, down to the forms the end-to-end tests do not send.

@Suite("serve: entity tags")
struct EntityTagTests {
    @Test("If-None-Match names a tag: exactly, weakly, in a list, as *, or with -gzip")
    func matches() {
        let tag = "455eb4f1aac3f9a8-439f"
        for header in [
            "\"\(tag)\"", "W/\"\(tag)\"", "\"\(tag)-gzip\"", "W/\"\(tag)-gzip\"", "*", " * ", "\"other\", \"\(tag)\"",
            "\"other\",\t\"\(tag)\" ", "\"a\",\"b\",W/\"\(tag)\"",
        ] {
            #expect(EntityTag.matches([header], tag: tag), "\(header)")
        }
        #expect(EntityTag.matches(["\"other\"", "\"\(tag)\""], tag: tag))
        for header in [
            "", "\(tag)", "\"\(tag)", "\(tag)\"", "\"\(tag)x\"", "\"x\(tag)\"", "w/\"\(tag)\"", "\"\(tag)-gzip-gzip\"",
            "\"other\"", "**", "\"\"", "\"", ",", "W/", "\"\(tag.uppercased())\"",
        ] {
            #expect(!EntityTag.matches([header], tag: tag), "\(header)")
        }
        #expect(!EntityTag.matches([], tag: tag))
    }

    @Test("a tag's opaque part loses its quotes only")
    func opaque() {
        #expect(EntityTag.opaque("\"abc-1\"") == "abc-1")
        #expect(EntityTag.opaque("abc") == "abc")
        #expect(EntityTag.opaque("\"\"") == "")
        #expect(EntityTag.opaque("\"a\"b\"") == "a\"b")
    }
}
