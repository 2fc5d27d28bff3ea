import Foundation
import CompressNIO
import Hummingbird
import HTTPTypes

/// Gives every response an `ETag` (a digest of its body), answers a matching `If-None-Match` with
/// `304 Not Modified`, and compresses the body with gzip when the request's `Accept-Encoding`
/// allows it.
///
/// The gzip representation's tag is the plain one with `-gzip` appended (as Apache does), and
/// `If-None-Match` is compared weakly (RFC 9110 §13.1.2) ignoring that suffix, so a client gets its
/// 304 whichever encoding it cached. Error responses thrown by the router (an unknown path) get a
/// tag too; only `2xx` answers to GET and HEAD are ever turned into a 304. A HEAD request runs the
/// GET handler (see `Router.readable`) and gets its headers, tag and length, without the body.
struct EntityTagMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Bodies smaller than this are sent uncompressed (gzip's header would outweigh the gain).
    static var minimumCompressedSize: Int { 256 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        guard response.status != .notModified else { return response }
        // A response kept rendered (RenderedPages) comes with its tag: a match needs no body.
        let preset = response.headers[.eTag].map(EntityTag.opaque)
        let readOnly = request.method == .get || request.method == .head
        let revalidated = readOnly && (200..<300).contains(response.status.code)
        if revalidated, let preset, EntityTag.matches(request.headers[values: .ifNoneMatch], tag: preset) {
            return Self.notModified(response, tag: preset)
        }
        let collector = BufferCollector()
        try await response.body.write(collector)
        var body = collector.buffer
        let tag = preset ?? EntityTag.of(body)
        response.headers[.vary] = "Accept-Encoding"
        if revalidated && EntityTag.matches(request.headers[values: .ifNoneMatch], tag: tag) {
            return Self.notModified(response, tag: tag)
        }
        if body.readableBytes >= Self.minimumCompressedSize, Self.acceptsGzip(request.headers[values: .acceptEncoding]),
            response.headers[.contentEncoding] == nil
        {
            let compressor = CompressionAlgorithm.gzip().compressor
            try compressor.startStream()
            var compressed = ByteBufferAllocator().buffer(capacity: compressor.maxSize(from: body))
            try compressor.streamDeflate(from: &body, to: &compressed, flush: .finish)
            try compressor.finishStream()
            response.headers[.contentEncoding] = "gzip"
            ServerMetrics.recordGzip()
            response.headers[.eTag] = "\"\(tag)-gzip\""
            response.body = ResponseBody(byteBuffer: compressed)
        } else {
            response.headers[.eTag] = "\"\(tag)\""
            response.body = ResponseBody(byteBuffer: body)
        }
        if request.method == .head {
            // The GET's headers, its length included, and no body.
            let length = response.body.contentLength
            response.body = ResponseBody(contentLength: length) { writer in try await writer.finish(nil) }
        }
        return response
    }

    /// The `304 Not Modified` answering a request for `response`, whose tag is `tag`.
    static func notModified(_ response: Response, tag: String) -> Response {
        var headers = HTTPFields()
        for field in response.headers where EntityTag.keptOn304.contains(field.name) { headers.append(field) }
        headers[.vary] = "Accept-Encoding"
        headers[.eTag] = "\"\(tag)\""
        ServerMetrics.recordNotModified()
        return Response(status: .notModified, headers: headers)
    }

    /// Whether `Accept-Encoding` lists `gzip` (or `*`) with a quality above zero.
    static func acceptsGzip(_ values: [String]) -> Bool {
        for element in values.flatMap({ $0.split(separator: ",") }) {
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if quality > 0 { return true }
        }
        return false
    }
}

/// Entity tags of response bodies.
enum EntityTag {
    /// The headers a 304 repeats (RFC 9110 §15.4.5), besides `ETag`.
    static let keptOn304: Set<HTTPField.Name> = [.cacheControl, .vary, .contentLocation, .expires, .link]

    /// 16 hexadecimal digits of the 64-bit FNV-1a digest of `body`, plus its length: equal bodies get
    /// equal tags, and a changed body a different one.
    static func of(_ body: ByteBuffer) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        body.withUnsafeReadableBytes { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + "-" + String(body.readableBytes, radix: 16)
    }

    /// Whether an `If-None-Match` (its header values) names `tag`: `*`, or a tag equal to it under
    /// weak comparison, with or without the `-gzip` suffix.
    static func matches(_ values: [String], tag: String) -> Bool {
        for value in values {
            for element in value.utf8.split(separator: UInt8(ascii: ",")) {
                var candidate = trimmed(element)
                if candidate.elementsEqual("*".utf8) { return true }
                if candidate.starts(with: "W/".utf8) { candidate = candidate.dropFirst(2) }
                guard candidate.count >= 2, candidate.first == UInt8(ascii: "\""), candidate.last == UInt8(ascii: "\"")
                else { continue }
                var opaque = candidate.dropFirst().dropLast()
                if opaque.count >= 5, opaque.suffix(5).elementsEqual("-gzip".utf8) { opaque = opaque.dropLast(5) }
                if opaque.elementsEqual(tag.utf8) { return true }
            }
        }
        return false
    }

    /// A tag without its quotes (`"abc"` → `abc`), as ``matches(_:tag:)`` compares it.
    static func opaque(_ header: String) -> String {
        var bytes = header.utf8[...]
        while bytes.first == UInt8(ascii: "\"") { bytes = bytes.dropFirst() }
        while bytes.last == UInt8(ascii: "\"") { bytes = bytes.dropLast() }
        return String(Substring(bytes))
    }

    /// `bytes` without the spaces and tabs around them (optional white space, RFC 9110 §5.6.3).
    private static func trimmed(_ bytes: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
        var bytes = bytes
        while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes = bytes.dropLast() }
        return bytes
    }
}

/// Collects a response body's buffers into one.
final class BufferCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ part: ByteBuffer) async throws {
        var part = part
        buffer.writeBuffer(&part)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
