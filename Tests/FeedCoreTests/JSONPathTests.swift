import FeedCore
import Foundation
import Testing

@Suite("JSON values and paths")
struct JSONPathTests {
    static let body = JSONValueFixture.parse(
        #"{"total_pages": 3, "photos": [{"id": 10270250, "name": "Dawn", "user": {"login": "ann"}}, {"id": 2, "name": null}], "full name": "x", "next": null, "n": -1.5e3}"#)

    @Test(
        "paths select values",
        arguments: [
            ("$", nil as String?),
            ("$.total_pages", "3"),
            ("$.photos[0].id", "10270250"),
            ("$.photos[0]['name']", "Dawn"),
            (#"$["photos"][0].user.login"#, "ann"),
            ("$['full name']", "x"),
            ("$.n", "-1.5e3"),
        ])
    func select(_ text: String, _ expected: String?) throws {
        let value = try #require(try JSONPath(text).evaluate(Self.body))
        #expect(value.scalarText == expected)
    }

    @Test("absent members, nulls and indices past the end yield nil", arguments: ["$.missing", "$.next", "$.photos[5]", "$.photos[1].name", "$.next.deeper"])
    func absent(_ text: String) throws {
        #expect(try JSONPath(text).evaluate(Self.body) == nil)
    }

    @Test("a step into the wrong kind of value names the concrete path")
    func wrongKind() throws {
        #expect(
            throws: JSONPathError(path: "$.photos[0].name", "expected an object with member 'first' for $.photos[0].name.first, found a string")
        ) { try JSONPath("$.photos[0].name.first").evaluate(Self.body) }
        #expect(throws: JSONPathError(path: "$[3]", "expected an array for $[0], found an object")) {
            try JSONPath("$[0]").evaluate(Self.body, base: "$[3]")
        }
    }

    @Test(
        "malformed paths fail with the offset of the problem",
        arguments: [
            ("photos", "a JSON path starts with '$' (e.g. $.items or $[0])", 0),
            ("$..a", "expected a member name after '.'", 2),
            ("$.a[", "'[' is not closed by ']'", 3),
            ("$.a[x]", "expected an array index (0, 1, …) or a quoted key after '['", 4),
            ("$.a[0", "expected ']'", 5),
            ("$['a", "unterminated quoted key", 2),
            ("$a", "unexpected 'a': expected '.' or '['", 1),
            ("$.a b", "unexpected ' ' in a member name (use ['…'] for such keys)", 3),
        ])
    func malformed(_ text: String, _ message: String, _ offset: Int) {
        #expect(throws: JSONPathError(path: text, message, offset: offset)) { try JSONPath(text) }
    }

    @Test("canonical descriptions and key-only paths")
    func describe() throws {
        #expect(try JSONPath("$['photos'][2]['full name']").description == "$.photos[2]['full name']")
        #expect(try JSONPath("$.a.b").keys == ["a", "b"])
        #expect(try JSONPath("$.a[0]").keys == nil)
        #expect(JSONPath.root.description == "$")
    }

    @Test("the parser keeps number text and key order, decodes escapes, and rejects malformed input")
    func parser() throws {
        let value = JSONValueFixture.parse(#"{"b": 1, "a": "\u00e9\ud83d\ude00\n", "c": [true, false, null, 1.0]}"#)
        guard case .object(let members) = value else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["b", "a", "c"])
        #expect(value["a"] == .string("é😀\n"))
        #expect(value["c"] == .array([.bool(true), .bool(false), .null, .number("1.0")]))
        #expect(value["c"].map { String(decoding: $0.serialized, as: UTF8.self) } == "[true,false,null,1.0]")
        for bad in ["{", "[1,]", "01", "\"abc", "{\"a\" 1}", "tru", "[1] x"] {
            #expect(throws: PageDecodeError.self, "\(bad)") { try JSONValue.parse(Data(bad.utf8)) }
        }
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: PageDecodeError.self) { try JSONValue.parse(Data(deep.utf8)) }
    }

    /// Strings are decoded a run of plain bytes at a time: runs before, between and after
    /// escapes, non-ASCII and invalid UTF-8 inside them, and errors at the same byte as before.
    @Test("strings: plain runs around escapes decode whole; a control character or no closing quote fails at its byte")
    func stringRuns() throws {
        let long = String(repeating: "plain café text ", count: 500)
        #expect(JSONValueFixture.parse("[\"\(long)\"]") == .array([.string(long)]))
        #expect(JSONValueFixture.parse(#"["ab\"cd\\ef\u00e9gh\/", ""]"#) == .array([.string("ab\"cd\\ef\u{e9}gh/"), .string("")]))
        let invalid = try JSONValue.parse(Data([0x5B, 0x22, 0x61, 0xFF, 0x62, 0x22, 0x5D]))
        #expect(invalid == .array([.string("a\u{FFFD}b")]))
        func message(_ text: String) -> String? {
            do {
                _ = try JSONValue.parse(Data(text.utf8))
                return nil
            } catch { return error.description }
        }
        #expect(message("[\"ab\u{01}c\"]")?.contains("control character in a string at byte 4") == true)
        #expect(message(#"["a\n\#u{01}"]"#)?.contains("control character in a string at byte 5") == true)
        #expect(message("[\"abc")?.contains("unterminated string") == true)
    }
}

enum JSONValueFixture {
    /// Parses a literal test document (a failure is a test bug).
    static func parse(_ text: String) -> JSONValue {
        do {
            return try JSONValue.parse(Data(text.utf8))
        } catch {
            Issue.record("fixture does not parse: \(error)")
            return .null
        }
    }
}
