import CurlHTTP
import FeedCore
import Foundation
import LoopbackServer
import Testing

/// `Content-Encoding` through the real client: libcurl hands over the body as sent and the client
/// decodes it in the calling task (gzip, deflate), so every case goes through a loopback server.
@Suite("Content decoding")
struct ContentDecodingTests {
    /// A text long enough to compress, with the member's index so concatenations are checked.
    static func text(_ index: Int) -> String {
        (0..<300).map { "item \(index)-\($0): feedagg content decoding. " }.joined()
    }

    /// Sends one GET for a response carrying `body` with `Content-Encoding: encoding`.
    static func fetch(
        _ body: [UInt8], encoding: String, configuration: CurlClient.Configuration = CurlClient.Configuration()
    ) async throws -> Result<HTTPResponse, TransportError> {
        var result: Result<HTTPResponse, TransportError>?
        try await withClientAndServer(configuration) { _ in
            LoopbackResponse(headers: [("Content-Encoding", encoding), ("Content-Type", "text/plain")], body: body)
        } _: { client, server in
            do {
                result = .success(try await client.send(get(server, "/encoded")))
            } catch let error as TransportError {
                result = .failure(error)
            }
        }
        return try #require(result)
    }

    /// The error of fetching `body` (see ``fetch(_:encoding:configuration:)``); records an issue
    /// and returns `nil` when the body was accepted.
    static func refusal(
        _ body: [UInt8], encoding: String, configuration: CurlClient.Configuration = CurlClient.Configuration(),
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws -> TransportError? {
        switch try await fetch(body, encoding: encoding, configuration: configuration) {
        case .failure(let error): return error
        case .success(let response):
            Issue.record("a \(encoding) body was accepted (\(response.body.count) bytes)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test("The client asks for gzip and deflate only: the encodings it decodes")
    func acceptEncoding() async throws {
        try await withClientAndServer { request in
            #expect(request.header("accept-encoding") == "gzip, deflate")
            return LoopbackResponse(body: Array("ok".utf8))
        } _: { client, server in
            let response = try await client.send(get(server, "/"))
            #expect(response.status == 200)
        }
    }

    @Test("deflate is decoded, zlib-wrapped (RFC 9110) and raw (as some servers send it)")
    func deflate() async throws {
        let plain = Array(Self.text(1).utf8)
        let gzipped = try await gzip(plain)
        // gzip -n: a 10-byte header, the raw deflate data, CRC-32 and size (8 bytes).
        let raw = Array(gzipped[10..<(gzipped.count - 8)])
        let zlib: [UInt8] = [0x78, 0x9C] + raw + adler32BigEndian(plain)
        for body in [zlib, raw] {
            let response = try await Self.fetch(body, encoding: "deflate").get()
            #expect(Array(response.body) == plain)
        }
    }

    @Test("Concatenated gzip members decode to the concatenation; bytes after the last member are ignored")
    func gzipMembers() async throws {
        let first = Array(Self.text(1).utf8)
        let second = Array(Self.text(2).utf8)
        let body = try await gzip(first) + gzip(second)
        let response = try await Self.fetch(body, encoding: "gzip").get()
        #expect(Array(response.body) == first + second)

        let trailing = try await gzip(first) + Array("\n\n".utf8)
        #expect(Array(try await Self.fetch(trailing, encoding: "x-gzip").get().body) == first)
    }

    @Test("A gzip member whose size trailer lies fails as corrupt, whatever size it claims")
    func lyingSizeTrailer() async throws {
        let plain = Array(Self.text(3).utf8)
        for claimed: UInt32 in [0xFFFF_FFFF, 1, 0] {
            var body = try await gzip(plain)
            // The last four bytes are the uncompressed size modulo 2^32, little-endian.
            withUnsafeBytes(of: claimed.littleEndian) { body.replaceSubrange((body.count - 4)..., with: $0) }
            // zlib checks the trailer against what it inflated; the claimed size only sized the
            // first buffer (clamped to the limit and to deflate's largest ratio).
            guard let error = try await Self.refusal(body, encoding: "gzip") else { continue }
            #expect(error.kind == .badResponse)
            #expect(error.detail.contains("does not decode"), "\(error.detail)")
        }
    }

    @Test("Corrupt and truncated gzip bodies fail with badResponse naming the encoding")
    func corrupt() async throws {
        let plain = Array(Self.text(4).utf8)
        var flipped = try await gzip(plain)
        for index in stride(from: 20, to: flipped.count - 20, by: 7) { flipped[index] ^= 0x5A }
        let cut = Array(try await gzip(plain).dropLast(40))
        for body in [flipped, cut, Array("not gzip at all".utf8)] {
            guard let error = try await Self.refusal(body, encoding: "gzip") else { continue }
            #expect(error.kind == .badResponse)
            #expect(error.detail.hasPrefix("the gzip body does not decode"), "\(error.detail)")
            #expect(error.url.path == "/encoded")
        }
    }

    @Test("An encoding the client did not ask for is a clear error")
    func unaskedEncoding() async throws {
        guard let error = try await Self.refusal(Array("xyz".utf8), encoding: "br") else { return }
        #expect(error.kind == .badResponse)
        #expect(error.detail.contains("'br'"), "\(error.detail)")
        #expect(error.detail.contains("gzip, deflate"), "\(error.detail)")
    }

    @Test("Decoding stops at maxResponseBytes: a gzip bomb never grows past the limit")
    func bomb() async throws {
        // 64 MiB of zeros compress to about 64 KB; the limit is 1 MiB.
        let bomb = try await gzip([UInt8](repeating: 0, count: 64 << 20))
        var configuration = CurlClient.Configuration()
        configuration.maxResponseBytes = 1 << 20
        guard let error = try await Self.refusal(bomb, encoding: "gzip", configuration: configuration) else { return }
        #expect(error.kind == .responseTooLarge)
        #expect(error.detail.contains("\(1 << 20)"), "\(error.detail)")
    }

    @Test("identity, an empty body and a client without Accept-Encoding return the body as sent")
    func passThrough() async throws {
        let plain = Array(Self.text(5).utf8)
        #expect(Array(try await Self.fetch(plain, encoding: "identity").get().body) == plain)
        let compressed = try await gzip(plain)
        let raw = try await Self.fetch(compressed, encoding: "gzip", configuration: .init(acceptEncoding: false)).get()
        #expect(Array(raw.body) == compressed)
        #expect(try await Self.fetch([], encoding: "gzip").get().body.isEmpty)
    }
}

/// The Adler-32 checksum of `bytes` (RFC 1950's trailer), big-endian.
private func adler32BigEndian(_ bytes: [UInt8]) -> [UInt8] {
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in bytes {
        a = (a + UInt32(byte)) % 65521
        b = (b + a) % 65521
    }
    let sum = b << 16 | a
    return [UInt8(sum >> 24), UInt8(sum >> 16 & 0xFF), UInt8(sum >> 8 & 0xFF), UInt8(sum & 0xFF)]
}
