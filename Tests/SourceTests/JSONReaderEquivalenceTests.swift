import FeedCore
import FeedReplay
import FeedaggTesting
import Foundation
import GitHubSource
import PhotosSource
import Testing

// The built-in sources decode pages in one pass with `JSONReader` (falling back to `Decodable`
// for what it does not decode exactly like `JSONDecoder`). These tests hold that to the previous
// path, `Decodable` alone (`JSONPage.elements(_:in:at:)`, driven by the same field table): over every recorded
// page in Fixtures/ and ../shared/realworld, over hand-made edge cases and over seeded random
// mutations, the two give the same DTOs field by field (and the same items, raw bytes included),
// or the same located error.

/// One body to decode, and where it came from.
private struct Sample: CustomStringConvertible {
    var origin: String
    var body: Data
    var description: String { origin }
}

/// One decoder's run over a page through the new path and through `Decodable` alone.
private struct Comparison {
    /// The source type.
    var type: String
    /// Whether both gave equal DTOs (field by field), raw bytes, indices and items, or the same error.
    var equal: Bool
    /// Both outcomes, for a failure message.
    var detail: String
    /// Elements `Decodable` decoded (`nil` when it failed).
    var decodedCount: Int?
    /// Whether the reader alone (no fallback) decoded the page.
    var readByReader: Bool
}

/// The four built-in page decoders, each run through both paths.
private enum Decoders {
    static let repos = try! GitHubReposSource.make([("org", "acme")])
    static let members = try! GitHubMembersSource.make([("org", "acme")])
    static let gists = try! GitHubGistsSource.make([])
    static let photos = try! FiveHundredPxSource.make([("feature", "editors")], baseURL: "https://api.500px.com")

    enum Outcome<T: Equatable & Sendable>: Equatable {
        case decoded(values: [T], raws: [Data], indices: [Int], items: [FeedItem])
        case failed(path: String, message: String)
        case otherError(String)

        init(_ decode: () throws -> [JSONPage.Element<T>], items: ([JSONPage.Element<T>]) throws -> [FeedItem]) {
            do {
                let elements = try decode()
                self = .decoded(
                    values: elements.map(\.value), raws: elements.map(\.raw), indices: elements.map(\.index),
                    items: try items(elements))
            } catch let error as PageDecodeError {
                self = .failed(path: error.path, message: error.message)
            } catch {
                self = .otherError(String(describing: error))
            }
        }

        var count: Int? {
            if case .decoded(let values, _, _, _) = self { return values.count }
            return nil
        }
    }

    static func compare<T: Equatable & Sendable>(
        _ type: String, new: () throws -> [JSONPage.Element<T>], codable: () throws -> [JSONPage.Element<T>],
        items: ([JSONPage.Element<T>]) throws -> [FeedItem], read: [JSONPage.Element<T>]?
    ) -> Comparison {
        let new = Outcome(new, items: items)
        let codable = Outcome(codable, items: items)
        return Comparison(
            type: type, equal: new == codable, detail: "new path: \(new)\nDecodable: \(codable)",
            decodedCount: codable.count, readByReader: read != nil)
    }

    static func all(_ page: FetchedPage) -> [Comparison] {
        [
            compare(
                "github.repos", new: { try repos.decodeRepositories(page) },
                codable: { try JSONPage.elements(RepositoryDTO.self, in: page) }, items: repos.items(from:),
                read: JSONPage.readElements(in: page, reading: RepositoryDTO.init(reading:))),
            compare(
                "github.members", new: { try members.decodeMembers(page) },
                codable: { try JSONPage.elements(GitHubUserDTO.self, in: page) }, items: members.items(from:),
                read: JSONPage.readElements(in: page, reading: GitHubUserDTO.init(reading:))),
            compare(
                "github.gists", new: { try gists.decodeGists(page) },
                codable: { try JSONPage.elements(GistDTO.self, in: page) }, items: gists.items(from:),
                read: JSONPage.readElements(in: page, reading: GistDTO.init(reading:))),
            compare(
                "photos.500px", new: { try photos.decodePhotos(page) },
                codable: {
                    try JSONPage.requireJSON(page)
                    try FiveHundredPxSource.requireEnvelope(page.response.body)
                    return try JSONPage.elements(PhotoDTO.self, in: page, at: ["photos"])
                }, items: photos.items(from:),
                read: JSONPage.readElements(in: page, at: ["photos"], reading: PhotoDTO.init(reading:))),
        ]
    }
}

/// Every response body recorded in Fixtures/ (as replay serves it) and under ../shared/realworld
/// (the 500px files byte for byte; the exchanges' and samples' parsed bodies re-serialised two
/// ways: compact with sorted keys, and pretty-printed with escaped slashes).
private func recordedSamples() throws -> [Sample] {
    var samples: [Sample] = []
    for exchange in try FixtureStore.load(directory: RepositoryPaths.fixtures.path) where !exchange.body.isEmpty {
        samples.append(Sample(origin: "Fixtures \(exchange.url)", body: exchange.body))
    }
    guard RepositoryPaths.hasRealworld else { return samples }
    let root = RepositoryPaths.realworld
    guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return samples }
    var files: [URL] = []
    for case let file as URL in enumerator where file.pathExtension == "json" { files.append(file) }
    for file in files.sorted(by: { $0.path < $1.path }) {
        let name = file.path.replacingOccurrences(of: root.path + "/", with: "")
        let data = try Data(contentsOf: file)
        if name.hasPrefix("500px/") { samples.append(Sample(origin: "realworld \(name)", body: data)) }
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { continue }
        var bodies: [Any] = []
        func collect(_ value: Any) {
            if let dictionary = value as? [String: Any] {
                if let body = dictionary["body"], body is [Any] || body is [String: Any] { bodies.append(body) }
                for (key, inner) in dictionary where key != "body" { collect(inner) }
            } else if let array = value as? [Any] {
                for inner in array { collect(inner) }
            }
        }
        collect(object)
        for (index, body) in bodies.enumerated() {
            for (variant, options) in [
                ("compact", JSONSerialization.WritingOptions([.sortedKeys, .withoutEscapingSlashes])),
                ("pretty", JSONSerialization.WritingOptions([.prettyPrinted])),
            ] {
                if let encoded = try? JSONSerialization.data(withJSONObject: body, options: options) {
                    samples.append(Sample(origin: "realworld \(name) body \(index) (\(variant))", body: encoded))
                }
            }
        }
    }
    return samples
}

@Suite("JSONReader decoding equals the Decodable path")
struct JSONReaderEquivalenceTests {
    @Test("every recorded page (Fixtures/, ../shared/realworld): same DTOs and items, or the same error")
    func recordedPages() throws {
        let samples = try recordedSamples()
        #expect(samples.count > 40, "found only \(samples.count) recorded bodies")
        var decodedByReader: [String: Int] = [:]
        var fellBack: [String] = []
        for sample in samples {
            let page = try FetchedPage.sample(sample.body)
            for c in Decoders.all(page) {
                #expect(c.equal, "\(c.type) on \(sample):\n\(c.detail)")
                if let count = c.decodedCount, count > 0 {
                    if c.readByReader {
                        decodedByReader[c.type, default: 0] += 1
                    } else {
                        fellBack.append("\(c.type) on \(sample)")
                    }
                }
            }
        }
        // Every page Decodable reads is read by the single-pass reader itself, without falling back.
        #expect(fellBack.isEmpty, "fell back to Decodable: \(fellBack)")
        for type in ["github.repos", "github.members", "github.gists", "photos.500px"] {
            #expect(decodedByReader[type, default: 0] > 0, "no recorded page exercised \(type)")
        }
    }

    /// A ghserver-style repository with `fields` spliced in before `"id"`; the last value of a
    /// repeated key is what `JSONDecoder` keeps, hence the tests of duplicates below.
    static func repo(_ fields: String = "", id: String = "1", name: String = #""r""#) -> String {
        #"{\#(fields)"id": \#(id), "name": \#(name), "html_url": "https://github.com/o/r", "language": "Swift", "forks_count": 3, "watchers_count": 4, "open_issues_count": 5, "owner": {"login": "o", "id": 9, "html_url": "https://github.com/o", "avatar_url": "https://a/9", "type": "Organization", "site_admin": false}, "created_at": "2015-10-23T21:15:07Z", "updated_at": "2024-01-31T12:00:00Z", "topics": ["a", "b"], "license": null, "score": 1.5e3}"#
    }

    static let gistPage = #"[{"id": "g1", "description": "d", "files": {"b.py": {"filename": "b.py", "language": "Python"}, "a\u00e9.md": {"language": null}}, "owner": null, "user": {"login": "u"}}]"#
    static let memberPage = #"[{"login": "a", "id": 1, "type": "User", "site_admin": true}, {"login": "b", "id": null}]"#
    static let photoPage = #"{"current_page": 1, "total_pages": 2, "total_items": 3, "photos": [{"id": 5, "name": "p", "description": "<a href=\"x\">d</a> &amp; e", "image_url": ["a", "b"], "images": [{"size": 2, "url": "u", "https_url": "h"}], "user": {"username": "x", "fullname": "X"}}]}"#

    static let edgeCases: [String] = [
        "[\(repo())]",
        "[]", "  [ ]  ", "[\(repo()) , \(repo(id: "2"))]", "\n\t[\r\n\(repo())\n]\n",
        // strings: escapes, unicode, surrogates, control characters, invalid UTF-8 is below
        "[\(repo(name: #""a\"b\\c\/d\b\f\n\r\t""#))]",
        "[\(repo(name: #""caf\u00e9 \u00E9 \u2014 \ud83d\ude80""#))]",
        "[\(repo(name: "\"café — 🚀 ñ\""))]",
        "[\(repo(name: #""\ud83d""#))]", "[\(repo(name: #""\ude80""#))]", "[\(repo(name: #""\ud83d\u0041""#))]",
        "[\(repo(name: #""a\u0000b""#))]", "[\(repo(name: "\"a\tb\""))]", "[\(repo(name: #""a\qb""#))]",
        "[\(repo(name: #""\u12""#))]", "[\(repo(#""x": "a\tb", "#))]", "[\(repo(#""x": "\q", "#))]",
        // numbers
        "[\(repo(id: "-0"))]", "[\(repo(id: "1.0"))]", "[\(repo(id: "1e2"))]", "[\(repo(id: "01"))]",
        "[\(repo(id: "9223372036854775807"))]", "[\(repo(id: "-9223372036854775808"))]",
        "[\(repo(id: "9223372036854775808"))]", "[\(repo(id: "99999999999999999999999"))]",
        "[\(repo(id: "+1"))]", "[\(repo(id: "1."))]", "[\(repo(id: "-"))]", "[\(repo(id: "\"1\""))]",
        "[\(repo(#""x": 1e999, "#))]", "[\(repo(#""x": 01, "#))]", "[\(repo(#""x": 1., "#))]", "[\(repo(#""x": -, "#))]",
        // nulls, missing and wrong types
        "[\(repo(id: "null"))]", "[\(repo(name: "null"))]", "[\(repo(name: "5"))]", "[{\"id\": 1}]", "[{\"name\": \"r\"}]",
        "[\(repo(#""language": null, "owner": null, "created_at": null, "#))]",
        "[\(repo(#""forks_count": "3", "#))]", "[\(repo(#""owner": {"id": 1}, "#))]", "[\(repo(#""owner": [], "#))]",
        "[\(repo(#""owner": {"login": "o", "site_admin": 1}, "#))]", "[\(repo(#""created_at": 5, "#))]",
        "[1]", "[null]", "[\"x\"]", "[[]]", "{}", "null", "[\(repo())] x", "[\(repo())]]", "[\(repo()),]",
        // duplicates and escaped keys
        "[\(repo(#""id": 7, "#))]", "[\(repo(#""name": "first", "#))]", "[\(repo(#""i\u0064": 7, "#))]",
        "[\(repo(#""x": 1, "x": 2, "#))]", "[\(repo(#""owner": {"login": "a", "login": "b"}, "#))]",
        // structure
        "[\(repo(#""x": tru, "#))]", "[\(repo(#""x": nul, "#))]", "[\(repo(#""x": [1,], "#))]", "[\(repo(#""x": {"a":1,}, "#))]",
        "[\(repo(#""x": {"a" 1}, "#))]", "[\(repo(#""x": {1: 1}, "#))]", "[{\"id\": 1, \"name\": \"r\",}]", "[{,\"id\": 1}]",
        "[" + repo(#""x": "# + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + ", ") + "]",
        "[" + repo(#""x": "# + String(repeating: "[", count: 61) + String(repeating: "]", count: 61) + ", ") + "]",
        "[" + repo(#""x": "# + String(repeating: "[", count: 62) + String(repeating: "]", count: 62) + ", ") + "]",
        // gists: files, owner/user
        gistPage,
        #"[{"id": "g1", "files": {"a": {}, "a": {}}}]"#, #"[{"id": "g1", "files": {"a": null}}]"#, #"[{"id": "g1", "files": null}]"#,
        #"[{"id": "g1", "files": []}]"#, #"[{"id": 5}]"#, #"[{"id": "g1", "files": {"x": {"filename": 3}}}]"#,
        // members
        memberPage,
        #"[{"login": null}]"#, #"[{"login": "a", "site_admin": "yes"}]"#,
        // 500px envelopes
        photoPage,
        #"{"photos": [{"id": 5, "image_url": []}, {"id": 6, "image_url": "rel/x.jpg"}, {"id": 7, "image_url": null, "images": null, "user": null}]}"#,
        #"{"photos": [{"id": 5, "image_url": [1]}]}"#, #"{"photos": [{"id": 5, "image_url": 1}]}"#, #"{"photos": [{"id": 5, "images": [{"size": "2"}]}]}"#,
        #"{"photos": [{"id": 5}], "total_pages": "x"}"#, #"{"photos": [{"id": 5}] garbage"#, #"{"photos": {}}"#, #"{"total": 1}"#,
        #"{"x": [1, {"y": "]"}], "photos": [{"id": 5, "user": {"username": "x", "username": "y"}}]}"#,
    ]

    @Test("hand-made edge cases: same DTOs and items, or the same error")
    func edgeCases() throws {
        for body in Self.edgeCases {
            for c in Decoders.all(try FetchedPage.sample(body)) {
                #expect(c.equal, "\(c.type) on \(body):\n\(c.detail)")
            }
        }
        // Invalid UTF-8 inside a read and a skipped string.
        for bytes in [[0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] as [[UInt8]] {
            for body in [
                Data(#"[{"id": 1, "name": "a"#.utf8) + Data(bytes) + Data(#""}]"#.utf8),
                Data(#"[{"x": "a"#.utf8) + Data(bytes) + Data(#"", "id": 1, "name": "a"}]"#.utf8),
            ] {
                for c in Decoders.all(try FetchedPage.sample(body)) {
                    #expect(c.equal, "\(c.type) on \(Array(body)):\n\(c.detail)")
                }
            }
        }
    }

    @Test("the reader decodes the usual shapes itself, without falling back")
    func noFallbackOnUsualShapes() throws {
        for body in [
            "[\(Self.repo())]", "[\(Self.repo(name: #""caf\u00e9 \ud83d\ude80 \"q\"""#))]",
            "[\(Self.repo(#""x": 1, "x": 2, "#))]", "[\(Self.repo(id: "-0"))]",
        ] {
            #expect(JSONPage.readElements(in: try FetchedPage.sample(body), reading: RepositoryDTO.init(reading:)) != nil, "\(body)")
        }
        for body in ["[\(Self.repo(id: "1.0"))]", "[\(Self.repo(#""id": 7, "#))]", "[\(Self.repo(#""i\u0064": 7, "#))]"] {
            #expect(JSONPage.readElements(in: try FetchedPage.sample(body), reading: RepositoryDTO.init(reading:)) == nil, "\(body)")
        }
    }

    @Test("seeded random mutations of recorded-shape pages: same outcome on both paths")
    func mutations() throws {
        let seeds = [
            "[\(Self.repo()), \(Self.repo(name: #""caf\u00e9""#))]", Self.gistPage, Self.memberPage, Self.photoPage,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]":,\ 0123456789-+.eEtrufalsn"u/abd"#.utf8) + [0x00, 0x09, 0x0A, 0x80, 0xC3, 0xFF]
        var state: UInt64 = 0x5EED
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var differing = 0
        for round in 0..<1500 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<(1 + next(3)) {
                let at = next(bytes.count)
                switch next(3) {
                case 0: bytes[at] = alphabet[next(alphabet.count)]
                case 1: bytes.insert(alphabet[next(alphabet.count)], at: at)
                default: bytes.remove(at: at)
                }
            }
            for c in Decoders.all(try FetchedPage.sample(Data(bytes))) where !c.equal {
                differing += 1
                Issue.record("\(c.type) on \(String(decoding: bytes, as: UTF8.self)):\n\(c.detail)")
            }
            if differing > 5 { break }
        }
    }
}
