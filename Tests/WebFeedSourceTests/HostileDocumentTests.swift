import FeedCore
import FeedaggTesting
import Foundation
import LoopbackServer
import Synchronization
import Testing
import WebFeedSource

/// Documents built to hurt a parser: entity tricks, truncation, wrong bytes, HTML, size.
@Suite("Hostile feed documents fail cleanly, with bounded memory")
struct HostileDocumentTests {
    /// A server that counts every request: an XML parser must never call it.
    final class Tripwire: Sendable {
        let hits = Mutex(0)
        func handle(_ request: LoopbackRequest) -> LoopbackResponse {
            hits.withLock { $0 += 1 }
            return LoopbackResponse(headers: [("Content-Type", "application/xml")], text: "<!ENTITY leak \"LEAKED\">")
        }
    }

    @Test("external entities and external DTDs are never fetched nor read (XXE)")
    func externalEntities() async throws {
        let tripwire = Tripwire()
        try await LoopbackHTTPServer.withServer(handler: { tripwire.handle($0) }) { server in
            let documents = [
                """
                <?xml version="1.0"?>
                <!DOCTYPE rss [<!ENTITY file SYSTEM "file:///etc/passwd"><!ENTITY web SYSTEM "\(server.baseURL)/entity">]>
                <rss version="2.0"><channel><item><guid>1</guid><title>a&file;b&web;c</title></item></channel></rss>
                """,
                """
                <?xml version="1.0"?>
                <!DOCTYPE rss SYSTEM "\(server.baseURL)/dtd">
                <rss version="2.0"><channel><item><guid>1</guid><title>plain</title></item></channel></rss>
                """,
                """
                <?xml version="1.0"?>
                <!DOCTYPE rss [<!ENTITY % remote SYSTEM "\(server.baseURL)/param"> %remote;]>
                <rss version="2.0"><channel><item><guid>1</guid><title>x&leak;</title></item></channel></rss>
                """,
            ]
            for text in documents {
                do {
                    let document = try FeedDocument.parse(Data(text.utf8), url: URL(string: "https://x.test/")!)
                    let titles = document.entries.compactMap(\.title)
                    #expect(!titles.contains { $0.contains("root:") || $0.contains("LEAKED") }, "\(titles)")
                } catch {
                    #expect(!"\(error)".contains("root:"), "\(error)")
                }
            }
            #expect(tripwire.hits.withLock { $0 } == 0, "the parser fetched an external entity or DTD")
        }
    }

    /// The classic: ten levels of ten references, a billion `lol`s (3 GB) if expanded.
    static let billionLaughs: String = {
        var lines = [#"<?xml version="1.0"?>"#, "<!DOCTYPE rss [", #"<!ENTITY lol0 "lol">"#]
        for level in 1...9 {
            let refs = String(repeating: "&lol\(level - 1);", count: 10)
            lines.append("<!ENTITY lol\(level) \"\(refs)\">")
        }
        lines.append("]>")
        lines.append(#"<rss version="2.0"><channel><item><guid>1</guid><title>&lol9;</title></item></channel></rss>"#)
        return lines.joined(separator: "\n")
    }()

    /// libxml2 2.9.14 (without `XML_PARSE_HUGE`) stops the amplification with its "entity
    /// reference loop" error, whether or not entities are substituted.
    @Test("a billion laughs is a clear error, fast, with bounded memory", .timeLimit(.minutes(2)))
    func billionLaughs() async throws {
        let error = try #require(FeedFixtures.error(Data(Self.billionLaughs.utf8)))
        #expect(error.message == "malformed XML: Detected an entity reference loop", "\(error)")
        // The memory, in processes of their own (this one runs other tests beside it): the parser
        // bench's child mode streams a file and reports its own peak RSS; the laughs may cost at
        // most 64 MiB more than a one-item feed does in the same program.
        let folder = try TemporaryFolder("feedagg-billion-laughs")
        defer { folder.remove() }
        func peak(of document: String, named name: String) async throws -> (ProcessOutput, Int) {
            let file = try folder.write(name, document)
            let child = try await ChildProcess.run(
                try TestBinary.locate("feedagg-feed-bench"), arguments: ["--parse-file", file.path], timeout: .seconds(60))
            let field = child.stdout.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("peak_rss=") }
            let bytes = try #require(field.flatMap { Int($0.dropFirst("peak_rss=".count)) }, "no peak_rss: \(child.summary)")
            return (child, bytes)
        }
        let (baseline, small) = try await peak(
            of: #"<rss version="2.0"><channel><item><guid>1</guid><title>x</title></item></channel></rss>"#, named: "one.xml")
        #expect(baseline.status == 0, "\(baseline.summary)")
        let (laughs, large) = try await peak(of: Self.billionLaughs, named: "laughs.xml")
        #expect(laughs.status == 1, "\(laughs.summary)")
        #expect(laughs.stdout.contains("malformed XML: Detected an entity reference loop"), "\(laughs.summary)")
        #expect(large - small < 64 << 20, "the laughs cost \((large - small) >> 20) MiB more than one item (\(large >> 20) MiB)")
    }

    @Test("a truncated document is malformed XML, with the line")
    func truncated() throws {
        let text = try String(contentsOf: FeedFixtures.folder.appendingPathComponent("wordpress.rss"), encoding: .utf8)
        let cut = String(text.prefix(text.count / 2))
        let error = try #require(FeedFixtures.error(Data(cut.utf8)))
        #expect(error.message.hasPrefix("malformed XML"), "\(error)")
        #expect(error.line != nil)
    }

    @Test("bytes that are not the declared encoding are an error with the line")
    func wrongEncoding() throws {
        var bytes = Array(#"<?xml version="1.0" encoding="UTF-8"?>"#.utf8) + [10]
        bytes += Array(#"<rss version="2.0"><channel>"#.utf8) + [10]
        bytes += Array("<item><title>caf".utf8) + [0xE9] + Array(" noir</title></item></channel></rss>".utf8)
        let error = try #require(FeedFixtures.error(Data(bytes)))
        #expect(error.message.contains("UTF-8"), "\(error)")
        #expect(error.line == 3, "\(error)")
    }

    @Test("an HTML page instead of a feed is named, with its Content-Type and title")
    func htmlInsteadOfFeed() throws {
        let page = "\n<!DOCTYPE html>\n<html lang=en><head><title>Sign in &ndash; Example\u{1B}[31m</title></head><body>"
        let error = try #require(FeedFixtures.error(Data(page.utf8), contentType: "text/html; charset=utf-8"))
        #expect(
            error.message
                == "expected an RSS, Atom or JSON Feed document, but an HTML page arrived (Content-Type text/html; "
                + "charset=utf-8), titled 'Sign in – Example[31m'")
        let bare = try #require(FeedFixtures.error(Data("<html><body>hi</body></html>".utf8)))
        #expect(bare.message == "expected an RSS, Atom or JSON Feed document, but an HTML page arrived")
    }

    @Test("other bodies: JSON that is no JSON Feed, plain text, an unknown root, an empty body")
    func notFeeds() throws {
        #expect(FeedFixtures.error(Data(#"{"items": []}"#.utf8))?.message.contains("not a JSON Feed") == true)
        #expect(FeedFixtures.error(Data("hello world".utf8))?.message == "expected an RSS, Atom or JSON Feed document, but the body starts with 'hello world'")
        #expect(FeedFixtures.error(Data("<opml version=\"2.0\"/>".utf8))?.message.contains("<opml>") == true)
        #expect(FeedFixtures.error(Data("  \n".utf8))?.message == "the response body is empty, not a feed")
    }

    @Test("a document over max_bytes is refused before parsing")
    func oversized() throws {
        let body = Data(repeating: 0x20, count: 2048)
        let error = try #require(FeedFixtures.error(body, limits: .init(maxBytes: 1024)))
        #expect(error.message == "the document is 2048 bytes, over the limit of 1024 bytes (the feed's 'max_bytes')")
    }
}
