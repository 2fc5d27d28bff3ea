import CZlib
import FeedCore
import Foundation

/// Decodes a response body by its `Content-Encoding` (gzip, deflate), in the task that awaits the
/// response rather than on the client's loop thread.
///
/// libcurl could inflate while the body streams in, but then every transfer in flight holds its
/// decoded body, grown by doubling (a 540 KB JSON page in a 1 MB buffer), and the one loop thread
/// inflates for every connection. Keeping the compressed bytes until the caller's task runs holds
/// a page at its wire size (about a tenth for JSON) until it is decoded, into a buffer sized from
/// the gzip trailer, on whichever core runs that task.
enum ContentDecoding {
    /// The `Accept-Encoding` the client sends: the encodings ``decode(_:limit:)`` reads.
    static let acceptEncoding = "gzip, deflate"

    /// `response` with its body decoded by every coding its `Content-Encoding` lists (last
    /// applied, first undone); unchanged when it lists none, or only `identity`, or the body is
    /// empty (a `304`, a `HEAD`).
    ///
    /// Throws ``TransportError`` `.responseTooLarge` when the decoded body would exceed `limit`
    /// bytes, and `.badResponse` for a coding other than gzip and deflate or bytes that do not
    /// decode (corrupt or truncated).
    static func decode(_ response: HTTPResponse, limit: Int) throws(TransportError) -> HTTPResponse {
        let codings = response.headers.values(for: "Content-Encoding")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty, !response.body.isEmpty else { return response }
        var decoded = response
        for coding in codings.reversed() {
            let format: Format
            switch coding {
            case "gzip", "x-gzip": format = .gzip
            case "deflate": format = .deflate
            default:
                throw TransportError(
                    kind: .badResponse, url: response.url,
                    detail: "the response is encoded with '\(coding.prefix(40))', which feedagg does not decode "
                        + "(it asks for \(acceptEncoding))")
            }
            do {
                decoded.body = try decompress(decoded.body, format: format, limit: limit)
            } catch {
                switch error {
                case .tooLarge:
                    throw TransportError(
                        kind: .responseTooLarge, url: response.url,
                        detail: "response body exceeds the limit of \(limit) bytes once decoded (\(coding))")
                case .corrupt(let reason):
                    throw TransportError(
                        kind: .badResponse, url: response.url, detail: "the \(coding) body does not decode: \(reason)")
                }
            }
        }
        return decoded
    }

    /// The container around the deflate data.
    enum Format {
        /// RFC 1952: one or more members, each with a header and a CRC-32 + size trailer.
        case gzip
        /// RFC 9110's `deflate`: zlib-wrapped (RFC 1950); raw deflate (RFC 1951), which some
        /// servers send instead, is accepted too, as browsers and libcurl do.
        case deflate
    }

    /// Why ``decompress(_:format:limit:)`` failed.
    enum Failure: Error {
        case tooLarge
        case corrupt(String)
    }

    /// The decompressed `input`, at most `limit` bytes.
    ///
    /// gzip: every member in turn (concatenated members decode to the concatenation); bytes after
    /// the last member that do not start another are ignored, as browsers do. The output buffer is
    /// first sized from the last member's trailer (the uncompressed size modulo 2³², a hint only:
    /// it is clamped to `limit` and to deflate's largest possible ratio, and grown if short).
    static func decompress(_ input: Data, format: Format, limit: Int) throws(Failure) -> Data {
        var output = OutputBuffer(initialCapacity: initialCapacity(input, format: format, limit: limit))
        let result: Result<Void, Failure> = input.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .success(()) }
            switch format {
            case .gzip:
                return inflateMembers(base, count: raw.count, into: &output, limit: limit)
            case .deflate:
                let wrapped = inflateStream(base, count: raw.count, windowBits: 15, into: &output, limit: limit)
                if case .failure(.corrupt) = wrapped, output.count == 0 {
                    return inflateStream(base, count: raw.count, windowBits: -15, into: &output, limit: limit)
                        .map { _ in }
                }
                return wrapped.map { _ in }
            }
        }
        if case .failure(let failure) = result { throw failure }
        return output.takeData()
    }

    /// The first output capacity: the gzip trailer's size when plausible, else four times the input.
    private static func initialCapacity(_ input: Data, format: Format, limit: Int) -> Int {
        // deflate cannot expand by more than 1032:1 (a 258-byte match in about two bits).
        let plausible = min(limit, input.count.multipliedReportingOverflow(by: 1032).partialValue)
        if format == .gzip, input.count >= 18 {
            let end = input.endIndex
            let size = input[end - 4..<end].reversed().reduce(0) { $0 << 8 | Int($1) }
            if size > 0 { return max(1, min(size, plausible)) }
        }
        return max(1, min(input.count.multipliedReportingOverflow(by: 4).partialValue, plausible))
    }

    /// Inflates consecutive gzip members from `base`.
    private static func inflateMembers(
        _ base: UnsafePointer<UInt8>, count: Int, into output: inout OutputBuffer, limit: Int
    ) -> Result<Void, Failure> {
        var offset = 0
        var members = 0
        while offset < count {
            // A further member starts with the gzip magic; anything else after one is trailing junk.
            if members > 0, count - offset < 2 || base[offset] != 0x1F || base[offset + 1] != 0x8B { break }
            switch inflateStream(base + offset, count: count - offset, windowBits: 16 + 15, into: &output, limit: limit) {
            case .success(let consumed):
                offset += consumed
                members += 1
            case .failure(let failure):
                return .failure(failure)
            }
        }
        return .success(())
    }

    /// Inflates one stream (one gzip member, one zlib stream or raw deflate) from `base` into
    /// `output`; returns the input bytes it consumed.
    private static func inflateStream(
        _ base: UnsafePointer<UInt8>, count: Int, windowBits: Int32, into output: inout OutputBuffer, limit: Int
    ) -> Result<Int, Failure> {
        var stream = z_stream()
        guard czlib_inflate_init2(&stream, windowBits) == Z_OK else {
            return .failure(.corrupt(stream.msg.map { String(cString: $0) } ?? "inflateInit2 failed"))
        }
        defer { inflateEnd(&stream) }
        stream.next_in = UnsafeMutablePointer(mutating: base)
        // zlib counts in 32 bits; a body over 4 GiB is far past any limit, so feed at most that.
        stream.avail_in = uInt(min(count, Int(UInt32.max)))
        while true {
            if output.spare == 0 {
                output.grow(limit: limit)
                // Only a failed realloc leaves no room: too large for this process.
                if output.spare == 0 { return .failure(.tooLarge) }
            }
            let spare = output.spare
            let chunk = min(spare, Int(UInt32.max))
            stream.next_out = output.end
            stream.avail_out = uInt(chunk)
            let status = CZlib.inflate(&stream, Z_NO_FLUSH)
            output.count += chunk - Int(stream.avail_out)
            // The buffer never grows past limit + 1, so a byte over the limit shows here.
            if output.count > limit { return .failure(.tooLarge) }
            switch status {
            case Z_STREAM_END:
                return .success(count - Int(stream.avail_in))
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                // No progress possible: with room left in the output, the input ran out early.
                if stream.avail_out > 0 { return .failure(.corrupt("the compressed data ends early")) }
            case Z_NEED_DICT:
                return .failure(.corrupt("it needs a preset dictionary"))
            default:
                return .failure(.corrupt(stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"))
            }
        }
    }

    /// A growable byte buffer handed to `Data` without a copy at the end.
    struct OutputBuffer: ~Copyable {
        private var base: UnsafeMutableRawPointer
        private var capacity: Int
        /// Bytes written.
        var count = 0

        init(initialCapacity: Int) {
            capacity = max(1, initialCapacity)
            base = malloc(capacity)!
        }

        deinit { free(base) }

        /// Writable bytes left.
        var spare: Int { capacity - count }

        /// Where the next byte goes.
        var end: UnsafeMutablePointer<UInt8> { (base + count).assumingMemoryBound(to: UInt8.self) }

        /// Doubles the capacity, to at most one byte over `limit` (so going past it is seen).
        mutating func grow(limit: Int) {
            let target = min(max(capacity * 2, 4096), limit.addingReportingOverflow(1).partialValue)
            guard target > capacity, let grown = realloc(base, target) else { return }
            base = grown
            capacity = target
        }

        /// The bytes written, as `Data` owning the buffer (trimmed when more than a page is unused).
        consuming func takeData() -> Data {
            if capacity - count > 4096, let trimmed = realloc(base, max(count, 1)) {
                base = trimmed
            }
            let data = Data(bytesNoCopy: base, count: count, deallocator: .free)
            discard self
            return data
        }
    }
}
