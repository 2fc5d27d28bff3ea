import Foundation

/// The bytes of a streamed document, handed to libxml2 chunk by chunk (``XMLStream`` pushes
/// what ``fill(_:)`` delivers): first the bytes already read to sniff the format, then whatever
/// `read` delivers, counted against the size limit.
///
/// Used by one parse on one thread and never shared; ``XMLStream`` keeps it as long as it
/// parses.
final class XMLChunkSource {
    /// Reads up to the buffer's size into it; returns the count, 0 at the end of the document.
    typealias Read = (UnsafeMutableRawBufferPointer) throws(FeedParseError) -> Int

    private var prefix: [UInt8]
    private var prefixOffset = 0
    private let read: Read
    private let maxBytes: Int
    /// Bytes delivered so far.
    private(set) var delivered = 0
    /// Why delivery stopped early (a read error, the size limit), reported instead of the error
    /// libxml2 makes of it.
    private(set) var failure: FeedParseError?

    /// A source that first delivers `prefix`, then what `read` returns, up to `maxBytes` in all.
    init(prefix: [UInt8], maxBytes: Int, read: @escaping Read) {
        self.prefix = prefix
        self.maxBytes = maxBytes
        self.read = read
    }

    /// Fills `buffer`: the count of bytes written, 0 at the end, -1 after a failure.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard failure == nil else { return -1 }
        var count: Int
        if prefixOffset < prefix.count {
            count = min(buffer.count, prefix.count - prefixOffset)
            prefix.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[prefixOffset..<prefixOffset + count]))
            }
            prefixOffset += count
            if prefixOffset == prefix.count { prefix = [] }
            prefixOffset = prefix.isEmpty ? 0 : prefixOffset
        } else {
            do {
                count = try read(buffer)
            } catch {
                failure = error
                return -1
            }
        }
        delivered += count
        guard delivered <= maxBytes else {
            failure = FeedDocument.oversized(delivered, limit: maxBytes)
            return -1
        }
        return count
    }
}
