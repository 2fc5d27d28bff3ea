import Foundation
import Testing

@testable import FeedStorage

/// The stream cursor's token is written and read without Foundation (``CursorCoding``): the same
/// bytes `JSONEncoder` wrote before, and every token `JSONDecoder` read still read the same way.
@Suite("Cursor tokens")
struct CursorCodingTests {
    /// The token as it was made before ``CursorCoding``: `JSONEncoder` (`.sortedKeys`) and base64url.
    static func foundationToken(_ position: StreamCursor.Position) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(position).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static var awkwardText: [String] {
        var controls = ""
        for value in 0..<0x20 { controls.unicodeScalars.append(Unicode.Scalar(UInt8(value))) }
        return [
            "", "feed", "org/repo", #"a"b\c"#, controls, "\u{7F}", "é", "ß-straße", "\u{2028}\u{2029}", "😀 emoji",
            "https://example.test/a?b=c&d=e#f", String(repeating: "x", count: 1000),
        ]
    }

    @Test("tokens are byte for byte those JSONEncoder wrote, and read back")
    func sameTokens() throws {
        var positions: [StreamCursor.Position] = []
        for (index, text) in Self.awkwardText.enumerated() {
            positions.append(
                StreamCursor.Position(
                    v: 1, p: index % 2, k: String((Double(index) * 1e9 + 0.5).bitPattern, radix: 16), r: index,
                    n: Int64(index) * 1_000_003 - 7, f: text, i: Self.awkwardText.reversed()[index]))
        }
        positions.append(StreamCursor.Position(v: 1, p: 0, k: "0", r: 0, n: .min, f: "f", i: "i"))
        positions.append(StreamCursor.Position(v: 1, p: 1, k: "ffffffffffffffff", r: .max, n: .max, f: "f", i: "i"))
        for position in positions {
            let token = try StreamCursor(position: position).token
            #expect(token == (try Self.foundationToken(position)), "\(position)")
            #expect(CursorCoding.position(token: token) == position, "\(position)")
            #expect(try StreamCursor(token).position == position)
        }
    }

    @Test("base64url is read as Foundation reads it")
    func base64() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let token = CursorCoding.base64URL(bytes)
            #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
            let standard = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
            #expect(token == standard.replacingOccurrences(of: "=", with: ""))
            #expect(CursorCoding.bytes(base64URL: token) == bytes)
            #expect(CursorCoding.bytes(base64URL: standard) == bytes)
        }
        for bad in ["a", "ab=c", "a b", "ab+c", "ab/c", "abc=d", "ab==="] {
            #expect(CursorCoding.bytes(base64URL: bad) == nil, "\(bad)")
        }
    }

    @Test("tokens of another shape still go through JSONDecoder")
    func otherShapes() throws {
        let json = [
            #"{"v":1,"p":0,"k":"41d0000000000000","r":2,"n":5,"f":"a\/b","i":"x\u00e9"}"#,
            #"{ "f": "a/b", "i": "xé", "k": "41d0000000000000", "n": 5, "p": 0, "r": 2, "v": 1 }"#,
            #"{"f":"a\/b","i":"x\u00E9","k":"41d0000000000000","n":5,"p":0,"r":2,"v":1,"extra":true}"#,
        ]
        for text in json {
            let token = CursorCoding.base64URL(Array(text.utf8))
            #expect(CursorCoding.position(token: token) == nil, "\(text)")
            let position = try StreamCursor(token).position
            #expect(position == StreamCursor.Position(v: 1, p: 0, k: "41d0000000000000", r: 2, n: 5, f: "a/b", i: "xé"))
        }
        for text in [#"{"f":"a","i":"b","k":"zz","n":1,"p":0,"r":0,"v":1}"#, #"{"f":"a","i":"b","k":"1","n":1,"p":2,"r":0,"v":1}"#] {
            let token = CursorCoding.base64URL(Array(text.utf8))
            #expect(throws: StoreError.self) { try StreamCursor(token) }
        }
    }
}
