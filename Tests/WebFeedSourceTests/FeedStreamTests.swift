import FeedCore
import Foundation
import Testing
import WebFeedSource

/// `FeedDocument.stream`: the document read chunk by chunk, each entry handed on as it ends.
@Suite("Feed documents stream chunk by chunk")
struct FeedStreamTests {
    /// A reader over `bytes` that hands out at most `chunk` bytes a call, counting what it gave.
    final class ChunkReader {
        let bytes: [UInt8]
        let chunk: Int
        var offset = 0
        init(_ bytes: [UInt8], chunk: Int) {
            self.bytes = bytes
            self.chunk = chunk
        }
        func read(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
            let count = min(chunk, buffer.count, bytes.count - offset)
            guard count > 0 else { return 0 }
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
            offset += count
            return count
        }
    }

    /// `file` streamed in chunks of `chunk` bytes, as a document.
    static func streamed(_ file: String, url: String, chunk: Int) throws -> FeedDocument {
        let reader = ChunkReader(Array(try FeedFixtures.data(file)), chunk: chunk)
        var entries: [FeedEntry] = []
        let header = try FeedDocument.stream(url: URL(string: url)!, read: reader.read) { entries.append($0) }
        #expect(header.entryCount == entries.count)
        return FeedDocument(format: header.format, title: header.title, entries: entries, nextURL: header.nextURL)
    }

    @Test("every fixture streams to its golden entries, whatever the chunk size", arguments: [1, 7, 4096, 1 << 20])
    func fixtures(chunk: Int) throws {
        for fixture in FeedFixtures.documents {
            let whole = try FeedFixtures.parse(fixture.file, url: fixture.url)
            let streamed = try Self.streamed(fixture.file, url: fixture.url, chunk: chunk)
            #expect(try FeedFixtures.golden(streamed) == FeedFixtures.golden(whole), "\(fixture.file), chunks of \(chunk)")
        }
    }

    /// A generated Atom document of `entries` entries, produced as it is read (never whole).
    final class GeneratedAtom {
        let entries: Int
        var produced = 0
        var pending: [UInt8] = Array(#"<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>big</title>"#.utf8)
        var delivered = 0
        var finished = false
        init(entries: Int) { self.entries = entries }
        func read(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
            while pending.count < buffer.count, !finished {
                if produced < entries {
                    let text = "<entry><id>urn:n:\(produced)</id><title>entry \(produced)</title>"
                        + "<updated>2025-11-01T10:00:00Z</updated><content type=\"html\">"
                        + String(repeating: "&lt;p&gt;some text of the entry&lt;/p&gt; ", count: 50) + "</content></entry>"
                    pending.append(contentsOf: text.utf8)
                    produced += 1
                } else {
                    pending.append(contentsOf: "</feed>".utf8)
                    finished = true
                }
            }
            let count = min(buffer.count, pending.count)
            pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            pending.removeFirst(count)
            delivered += count
            return count
        }
    }

    @Test("a large document is read only as far as the entry being handed on (bounded read-ahead)")
    func boundedReadAhead() throws {
        let source = GeneratedAtom(entries: 20_000)
        var count = 0
        var aheadOfProduction = 0
        let header = try FeedDocument.stream(
            url: URL(string: "https://big.test/atom")!, limits: .init(maxBytes: 1 << 30), read: source.read
        ) { entry in
            // Entry n is handed on while the reader has produced at most a few entries past it.
            aheadOfProduction = max(aheadOfProduction, source.produced - count)
            #expect(entry.guid == "urn:n:\(count)")
            count += 1
        }
        #expect(header.entryCount == 20_000)
        #expect(count == 20_000)
        #expect(source.delivered > 40 << 20, "the document is \(source.delivered) bytes")
        // Each entry is ~2.2 KB: 64 entries ahead is ~140 KB of read-ahead, against a 45 MB document.
        #expect(aheadOfProduction < 64, "the parser read \(aheadOfProduction) entries ahead")
    }

    @Test("a streamed document over max_bytes fails when the limit is passed")
    func limit() throws {
        let source = GeneratedAtom(entries: 10_000)
        var count = 0
        #expect {
            _ = try FeedDocument.stream(
                url: URL(string: "https://big.test/atom")!, limits: .init(maxBytes: 1 << 20), read: source.read
            ) { _ in count += 1 }
        } throws: { error in
            (error as? FeedParseError)?.message.contains("over 1048576 bytes") == true
        }
        #expect(source.delivered < 2 << 20)
        #expect(count > 0 && count < 1000)
    }

    @Test("a read error ends the parse with that error")
    func readError() throws {
        let source = GeneratedAtom(entries: 1000)
        #expect(throws: FeedParseError("cannot read the test body: connection reset")) {
            _ = try FeedDocument.stream(
                url: URL(string: "https://big.test/atom")!,
                read: { (buffer) throws(FeedParseError) -> Int in
                    if source.delivered > 100_000 { throw FeedParseError("cannot read the test body: connection reset") }
                    return source.read(buffer)
                }
            ) { _ in }
        }
    }

    @Test("a file streams from disk")
    func file() throws {
        let fixture = try #require(FeedFixtures.documents.first { $0.format == .rss1 })
        var entries: [FeedEntry] = []
        let header = try FeedDocument.stream(
            fileAt: FeedFixtures.folder.appendingPathComponent(fixture.file).path, url: URL(string: fixture.url)!
        ) { entries.append($0) }
        let whole = try FeedFixtures.parse(fixture.file, url: fixture.url)
        #expect(header.format == .rss1)
        #expect(entries.map(\.stableID) == whole.entries.map(\.stableID))
        #expect(throws: FeedParseError.self) {
            _ = try FeedDocument.stream(fileAt: "/nonexistent/feed.xml", url: URL(string: fixture.url)!) { _ in }
        }
    }

    @Test("an HTML page is the same clear error streamed as parsed")
    func html() throws {
        let page = Array("<!DOCTYPE html><html><head><title>Sign in</title></head><body></body></html>".utf8)
        let reader = ChunkReader(page, chunk: 5)
        #expect {
            _ = try FeedDocument.stream(url: URL(string: "https://x.test/")!, read: reader.read) { _ in }
        } throws: { error in
            (error as? FeedParseError)?.message.contains("an HTML page arrived") == true
        }
    }
}
