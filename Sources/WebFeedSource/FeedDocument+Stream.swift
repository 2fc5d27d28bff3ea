public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension FeedDocument {
    /// What a streamed parse (``stream(contentType:url:limits:read:onEntry:)``) reports once the
    /// document has ended; its entries went to the caller one by one.
    public struct Header: Sendable, Hashable {
        /// The detected format.
        public var format: Format
        /// The feed's own title, when it has one.
        public var title: String?
        /// The next page, as ``FeedDocument/nextURL``.
        public var nextURL: URL?
        /// How many entries were handed on.
        public var entryCount: Int

        /// Creates a header.
        public init(format: Format, title: String? = nil, nextURL: URL? = nil, entryCount: Int) {
            self.format = format
            self.title = title
            self.nextURL = nextURL
            self.entryCount = entryCount
        }
    }

    /// Parses a document read chunk by chunk, handing each entry to `onEntry` as soon as it has
    /// been read, so memory stays bounded whatever the document's size: RSS, RDF and Atom go
    /// through libxml2's push parser, fed what `read` delivers (``XMLStream``); a JSON Feed,
    /// which has no entry boundary a pull parser could stop at, is read whole (up to
    /// ``Limits/maxBytes``) and then handed on entry by entry.
    ///
    /// `read` fills the buffer it is given and returns the count of bytes written, 0 at the end
    /// of the document. The format is sniffed from the first 8 KiB, as ``parse(_:contentType:url:limits:)``
    /// does, and the same errors are thrown; a document longer than ``Limits/maxBytes`` fails
    /// when that many bytes have been read.
    public static func stream(
        contentType: String? = nil, url: URL, limits: Limits = Limits(),
        read: @escaping (UnsafeMutableRawBufferPointer) throws(FeedParseError) -> Int,
        onEntry: (FeedEntry) throws(FeedParseError) -> Void
    ) throws(FeedParseError) -> Header {
        // Raw buffers rather than arrays: `withUnsafeMutableBytes` would untype `read`'s errors.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 1)
        defer { buffer.deallocate() }
        var filled = 0
        while filled < 8192 {
            let count = try read(UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<8192]))
            if count <= 0 { break }
            filled += count
        }
        let head = [UInt8](buffer[..<filled])
        guard head.count <= limits.maxBytes else { throw oversized(head.count, limit: limits.maxBytes) }
        let sniffed = FeedSniffer.sniff(Data(head), contentType: contentType)
        switch sniffed.kind {
        case .xml:
            let chunks = XMLChunkSource(prefix: head, maxBytes: limits.maxBytes, read: read)
            return try XMLFeedParser.stream(
                chunks, encoding: sniffed.declaredCharset, url: url, limits: limits, onEntry: onEntry)
        default:
            // JSON (or an error page): read whole, bounded by the limit, and parsed as `parse` does.
            var data = Data(head)
            while true {
                let count = try read(buffer)
                if count <= 0 { break }
                data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                guard data.count <= limits.maxBytes else { throw oversized(data.count, limit: limits.maxBytes) }
            }
            let document = try parse(data, contentType: contentType, url: url, limits: limits)
            for entry in document.entries { try onEntry(entry) }
            return Header(
                format: document.format, title: document.title, nextURL: document.nextURL,
                entryCount: document.entries.count)
        }
    }

    /// ``stream(contentType:url:limits:read:onEntry:)`` over the file at `path`, read 64 KiB
    /// at a time.
    public static func stream(
        fileAt path: String, contentType: String? = nil, url: URL, limits: Limits = Limits(),
        onEntry: (FeedEntry) throws(FeedParseError) -> Void
    ) throws(FeedParseError) -> Header {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FeedParseError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        return try stream(
            contentType: contentType, url: url, limits: limits,
            read: { (buffer) throws(FeedParseError) -> Int in
                while true {
                    let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
                    if count >= 0 { return count }
                    if errno == EINTR { continue }
                    throw FeedParseError("cannot read \(path): \(String(cString: strerror(errno)))")
                }
            }, onEntry: onEntry)
    }

    /// The error for a document over `limit` bytes (`count` read so far).
    static func oversized(_ count: Int, limit: Int) -> FeedParseError {
        FeedParseError(
            "the document is over \(limit) bytes (\(count) read), the limit of \(limit) bytes (the feed's 'max_bytes')")
    }
}
