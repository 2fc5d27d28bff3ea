import FeedCore
import FeedaggTesting
import Foundation
import Testing

@Suite("JSON page decoding")
struct JSONPageTests {
    struct Repo: Decodable, Sendable {
        var id: Int
        var name: String
    }

    static let url = URL(string: "https://h.test/x")!

    func page(_ body: String, type: String = "application/json; charset=utf-8") -> FetchedPage {
        .sample(body, url: Self.url, contentType: type)
    }

    @Test("elements keep their raw bytes")
    func raw() throws {
        let elements = try JSONPage.elements(Repo.self, in: page(#" [ {"id": 1, "name": "a", "x": [1, {"y": "]"}]} , {"id":2,"name":"b\"}"} ] "#))
        #expect(elements.map(\.value.id) == [1, 2])
        #expect(String(decoding: elements[0].raw, as: UTF8.self) == #"{"id": 1, "name": "a", "x": [1, {"y": "]"}]}"#)
        #expect(elements[1].value.name == #"b"}"#)
    }

    @Test("an element Foundation refuses as a whole gets a precise reason: syntax (byte offset in the body), UTF-8, number range", arguments: [
        (Array(#"[{"id":1,"name":"a"}, {"id":2,"name":}]"#.utf8), "$[1]", "malformed JSON: expected a value at byte 37"),
        (Array(#"[{"id":1,"name":"a"#.utf8) + [0xC3, 0x28] + Array(#""}]"#.utf8), "$[0]", "malformed JSON: invalid UTF-8 at byte 18"),
        (Array(#"[{"id":99999999999999999999999,"name":"a"}]"#.utf8), "$[0].id", "number 99999999999999999999999 is out of range"),
    ])
    func preciseMalformedElements(body: [UInt8], path: String, message: String) throws {
        let page = FetchedPage.sample(Data(body), url: Self.url, contentType: "application/json")
        #expect(throws: PageDecodeError(path: path, message)) { try JSONPage.elements(Repo.self, in: page) }
    }

    @Test("envelope member and totals")
    func envelope() throws {
        let p = page(#"{"current_page": 2, "total_pages": null, "photos": [{"id": 5, "name": "p"}], "total_items": 41}"#)
        #expect(try JSONPage.elements(Repo.self, in: p, at: ["photos"]).map(\.value.id) == [5])
        #expect(try JSONPage.integerMember("current_page", in: p) == 2)
        #expect(try JSONPage.integerMember("total_pages", in: p) == nil)
        #expect(try JSONPage.integerMember("total_items", in: p) == 41)
    }

    @Test("located errors", arguments: [
        (#"[{"id": 1, "name": null}]"#, [String](), "$[0].name", "expected a string, found null"),
        (#"[{"id": 1}]"#, [], "$[0]", "missing required key 'name'"),
        (#"{"photos": []}"#, [], "$", "expected an array, found an object"),
        (#"[{"id": 1, "name": "a"}"#, [], "$", "malformed JSON: unterminated array"),
        (#"[1, 2"#, [], "$", "malformed JSON: unterminated array"),
        (#"[{"id": 1, "name": "a"}]"#, ["photos"], "$", "expected an object with key 'photos', found an array"),
        (#"{"total": 3}"#, ["photos"], "$", "missing required key 'photos'"),
        (#"[{"id": 99999999999999999999999, "name": "a"}]"#, [], "$[0].id", "number 99999999999999999999999 is out of range"),
    ])
    func errors(_ body: String, _ path: [String], _ where_: String, _ message: String) {
        do {
            _ = try JSONPage.elements(Repo.self, in: page(body), at: path)
            Issue.record("expected an error for \(body)")
        } catch let error as PageDecodeError {
            #expect(error.path == where_)
            #expect(error.message.hasPrefix(message), "\(error.message)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// A single-pass reader for `Repo`, as a source would write one.
    static func read(_ reader: inout JSONReader) throws(JSONReader.Unsupported) -> Repo {
        var id: Int?, name: String?
        var object = try reader.beginObject()
        while let key = try reader.nextKey(&object) {
            if try reader.key(key, is: "id") {
                guard id == nil else { throw JSONReader.Unsupported() }
                id = try reader.readInt()
            } else if try reader.key(key, is: "name") {
                guard name == nil else { throw JSONReader.Unsupported() }
                name = try reader.readString()
            } else {
                try reader.skipValue()
            }
        }
        guard let id, let name else { throw JSONReader.Unsupported() }
        return Repo(id: id, name: name)
    }

    @Test("a single-pass reader gives the Decodable path's elements, raw bytes and located errors", arguments: [
        (#" [ {"id": 1, "name": "a", "x": [1, {"y": "]"}]} , {"id":2,"name":"b\"}"} ] "#, [String]()),
        (#"{"current_page": 2, "photos": [{"id": 5, "name": "p\u00e9"}], "total_items": 41}"#, ["photos"]),
        (#"[{"id": 1, "name": null}]"#, []), (#"[{"id": 1}]"#, []), (#"{"photos": []}"#, []),
        (#"[{"id": 1, "name": "a"}"#, []), (#"[1, 2"#, []), (#"[{"id": 1, "name": "a"}]"#, ["photos"]),
        (#"{"total": 3}"#, ["photos"]), (#"[{"id": 99999999999999999999999, "name": "a"}]"#, []),
        (#"[{"id": 1.0, "name": "a"}]"#, []), (#"[{"id": 1, "name": "a"}] x"#, []), (#"[{"id": 1, "name": "a",}]"#, []),
    ])
    func reader(_ body: String, _ path: [String]) {
        func outcome(_ decode: () throws -> [JSONPage.Element<Repo>]) -> String {
            do {
                return try decode().map { "\($0.index) \($0.value.id) \($0.value.name) \(String(decoding: $0.raw, as: UTF8.self))" }
                    .joined(separator: "\n")
            } catch {
                return "error: \(error)"
            }
        }
        let codable = outcome { try JSONPage.elements(Repo.self, in: page(body), at: path) }
        let reader = outcome { try JSONPage.elements(Repo.self, in: page(body), at: path, reading: Self.read) }
        #expect(reader == codable)
    }

    @Test("HTML served as 200 and empty bodies are refused")
    func notJSON() {
        #expect(throws: PageDecodeError.self) { try JSONPage.elements(Repo.self, in: page("<html>oops</html>", type: "text/html")) }
        #expect(throws: PageDecodeError.self) { try JSONPage.elements(Repo.self, in: page("<!DOCTYPE html>", type: "application/json")) }
        #expect(throws: PageDecodeError.self) { try JSONPage.elements(Repo.self, in: page("   ")) }
    }

    @Test("nesting depth is bounded")
    func depth() {
        let deep = "[" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "]"
        #expect(throws: PageDecodeError.self) { try JSONPage.elements(Repo.self, in: page(deep)) }
    }
}
