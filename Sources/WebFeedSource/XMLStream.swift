import CLibXML2
import Foundation

/// One attribute of the current element.
struct XMLAttribute {
    var namespace: String
    var localName: String
    var value: String
}

/// A pull-style reader of an XML document, one node at a time, over libxml2's SAX2 push parser:
/// the document goes to libxml2 a chunk at a time (``chunkSize`` bytes, the last one with
/// `terminate`), the parser's callbacks record the chunk's nodes as events (``XMLEvents``), and
/// ``read()`` hands them out, pushing the next chunk when they run out. Memory follows one chunk's
/// events, not the document. (libxml2's own `xmlTextReader` pushes 512 bytes at a time; its
/// push parser then searches the buffered input for `<` and `>` again on every push, and builds
/// and frees a tree node for every node it reports: that was over half of the parse's
/// instructions over the feed fixtures.)
///
/// Options: `XML_PARSE_NONET` (no network), no `XML_PARSE_NOENT` (entities are never
/// substituted: an entity reference in text is skipped), no `XML_PARSE_DTDLOAD`/`DTDATTR` (no
/// external DTD or entity is loaded), no `XML_PARSE_HUGE` (libxml2's limits on text-node size,
/// nesting depth and entity amplification stay on). The SAX2 defaults stay for the DTD, so
/// libxml2 checks each entity once as it always does (and stops a billion laughs); only the
/// document's own nodes go to the events. Errors go to this reader's handler, never to stderr.
/// The type owns the C parser context and frees it in `deinit`; it is used by one parse on one
/// thread and never shared.
final class XMLStream {
    /// The node types ``nodeType`` reports (libxml2's reader numbers).
    enum NodeType {
        static let element = Int32(XML_READER_TYPE_ELEMENT.rawValue)
        static let text = Int32(XML_READER_TYPE_TEXT.rawValue)
        static let cdata = Int32(XML_READER_TYPE_CDATA.rawValue)
        static let whitespace = Int32(XML_READER_TYPE_WHITESPACE.rawValue)
        static let significantWhitespace = Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue)
        static let endElement = Int32(XML_READER_TYPE_END_ELEMENT.rawValue)
    }

    /// Parser options: see the type's documentation.
    static let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)
    /// The bytes handed to libxml2 per push. A document up to this size goes in one push, with
    /// `terminate`: libxml2 then parses it straight through.
    static let chunkSize = 1 << 20

    /// libxml2's one-time initialisation, run before the first parser is made.
    private static let initialised: Bool = {
        xmlInitParser()
        return true
    }()

    /// The parser context (SAX2 push parser); its `_private` points at ``events``.
    let context: xmlParserCtxtPtr
    /// The nodes libxml2 reported and ``read()`` has not handed out yet (and the current one),
    /// allocated by this reader (see ``XMLEvents``).
    private let events: UnsafeMutablePointer<XMLEvents>
    /// The position of the current node in ``events``; -1 before the first.
    private var cursor = -1
    /// Whether libxml2 has had the whole document (the last push had `terminate`).
    private var finished = false
    /// The next push: memory (``init(bytes:url:encoding:)``) or chunks from a source.
    private let input: Input
    /// Where the bytes come from.
    private enum Input {
        case memory(UnsafeRawBufferPointer)
        case chunks(XMLChunkSource, buffer: UnsafeMutableRawBufferPointer)
    }
    private var memoryOffset = 0
    /// The bytes of the text being collected by ``text()``, reused from one call to the next.
    private var scratch: [UInt8] = []

    /// A reader over `bytes` (which must outlive it); `encoding` overrides the document's own
    /// declaration (a Content-Type charset). `nil` when libxml2 makes no parser.
    init?(bytes: UnsafeRawBufferPointer, url: String, encoding: String?) {
        _ = Self.initialised
        let first = min(4, bytes.count)
        events = Self.allocateEvents()
        guard let context = Self.makeContext(first: bytes.baseAddress, count: first, url: url, encoding: encoding, events: events)
        else {
            events.deinitialize(count: 1)
            events.deallocate()
            return nil
        }
        self.context = context
        input = .memory(bytes)
        memoryOffset = first
        events.pointee.attach(context: context)
    }

    /// A reader pulling the document from `chunks` as it goes: the document is never held
    /// whole, so memory stays bounded whatever its size.
    init?(chunks: XMLChunkSource, url: String, encoding: String?) {
        _ = Self.initialised
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
        // The first four bytes go in with the context: libxml2 detects UTF-16 and the like there.
        var first = 0
        while first < 4 {
            let count = chunks.fill(UnsafeMutableRawBufferPointer(rebasing: buffer[first..<4]))
            if count <= 0 { break }
            first += count
        }
        events = Self.allocateEvents()
        guard chunks.failure == nil,
            let context = Self.makeContext(
                first: UnsafeRawPointer(buffer.baseAddress), count: first, url: url, encoding: encoding, events: events)
        else {
            buffer.deallocate()
            events.deinitialize(count: 1)
            events.deallocate()
            return nil
        }
        self.context = context
        input = .chunks(chunks, buffer: buffer)
        events.pointee.attach(context: context)
    }

    /// Empty events, in memory of their own.
    private static func allocateEvents() -> UnsafeMutablePointer<XMLEvents> {
        let events = UnsafeMutablePointer<XMLEvents>.allocate(capacity: 1)
        events.initialize(to: XMLEvents())
        return events
    }

    /// A SAX2 push parser context over `count` first bytes, its handlers ``XMLEvents``'.
    private static func makeContext(
        first: UnsafeRawPointer?, count: Int, url: String, encoding: String?, events: UnsafeMutablePointer<XMLEvents>
    ) -> xmlParserCtxtPtr? {
        var handler = XMLEvents.makeHandler()
        guard
            let context = xmlCreatePushParserCtxt(
                &handler, nil, first?.assumingMemoryBound(to: CChar.self), Int32(count), url)
        else { return nil }
        xmlCtxtUseOptions(context, options)
        context.pointee._private = UnsafeMutableRawPointer(events)
        if let encoding, let converter = xmlFindCharEncodingHandler(encoding) {
            xmlSwitchToEncoding(context, converter)
        }
        return context
    }

    deinit {
        if let document = context.pointee.myDoc {
            context.pointee.myDoc = nil
            xmlFreeDoc(document)
        }
        xmlFreeParserCtxt(context)
        events.deinitialize(count: 1)
        events.deallocate()
        if case .chunks(_, let buffer) = input { buffer.deallocate() }
    }

    /// Moves to the next node; `false` at the end of the document. Throws the parser's error
    /// once the nodes before it have been read.
    func read() throws(FeedParseError) -> Bool {
        if cursor + 1 < events.pointee.count {
            cursor += 1
            return true
        }
        events.pointee.removeAll()
        cursor = -1
        while events.pointee.count == 0 {
            if events.pointee.stopped { throw failure() }
            if finished {
                if events.pointee.errorMessage != nil { throw failure() }
                return false
            }
            push()
        }
        cursor = 0
        return true
    }

    /// Hands libxml2 the next chunk (the last with `terminate`).
    private func push() {
        switch input {
        case .memory(let bytes):
            let count = min(Self.chunkSize, bytes.count - memoryOffset)
            let start = bytes.baseAddress.map { $0 + memoryOffset }?.assumingMemoryBound(to: CChar.self)
            memoryOffset += count
            finished = memoryOffset == bytes.count
            xmlParseChunk(context, start, Int32(count), finished ? 1 : 0)
        case .chunks(let source, let buffer):
            let count = source.fill(buffer)
            if count < 0 {
                events.pointee.stop()
                return
            }
            finished = count == 0
            xmlParseChunk(context, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(count), finished ? 1 : 0)
        }
        if context.pointee.wellFormed == 0, context.pointee.disableSAX != 0 { events.pointee.stop() }
    }

    /// The error libxml2 reported (or a generic one), as a ``FeedParseError``; a chunk source's
    /// own failure (a read error, the size limit) comes first.
    func failure() -> FeedParseError {
        if case .chunks(let source, _) = input, let failed = source.failure { return failed }
        let message = events.pointee.errorMessage ?? "malformed XML"
        let line = events.pointee.errorLine ?? Int(context.pointee.input?.pointee.line ?? 0)
        return FeedParseError("malformed XML: \(FeedSniffer.printable(message, limit: 200))", line: line > 0 ? line : nil)
    }

    /// The current node's type.
    var nodeType: Int32 { events.pointee.kinds[cursor] }
    /// The current node's depth (the root element is 0).
    var depth: Int { Int(events.pointee.depths[cursor]) }
    /// Whether the current element has no content (`<x/>`, or `<x></x>`): no end-element node
    /// follows it.
    var isEmptyElement: Bool {
        guard events.pointee.kinds[cursor] == NodeType.element else { return false }
        // The element's end may not be parsed yet: push until a node follows it.
        while cursor + 1 == events.pointee.count, !finished, !events.pointee.stopped { push() }
        return events.pointee.empties[cursor]
    }
    /// The current node's local name.
    var localName: String { events.pointee.names[cursor] }
    /// The current node's namespace URI, or `""`.
    var namespace: String { events.pointee.namespaces[cursor] }
    /// The current text node's value.
    var value: String {
        let range = events.pointee.texts[cursor]
        return String(decoding: events.pointee.bytes[range], as: UTF8.self)
    }
    /// The line of the current node.
    var line: Int { Int(events.pointee.lines[cursor]) }

    /// The current element's attributes (namespace declarations included, first).
    func attributes() -> [XMLAttribute] { events.pointee.attributes[cursor] }

    /// The text inside the current element (descendants' text included), leaving the reader on
    /// its end tag. Entity references are skipped, never expanded. A space stands for each block
    /// element inside (XHTML content).
    func text() throws(FeedParseError) -> String {
        try collectText()
        return String(decoding: scratch, as: UTF8.self)
    }

    /// ``text()`` as UTF-8 bytes, for text that goes on as bytes (an entry's HTML content).
    func textBytes() throws(FeedParseError) -> [UInt8] {
        try collectText()
        return scratch
    }

    /// ``text()`` with its whitespace folded (``HTMLText/fold(_:)``), in one pass over its bytes.
    func foldedText() throws(FeedParseError) -> String {
        try collectText()
        return scratch.withUnsafeBufferPointer { HTMLText.fold(bytes: $0) }
    }

    /// Collects ``text()``'s bytes into `scratch`.
    private func collectText() throws(FeedParseError) {
        scratch.removeAll(keepingCapacity: true)
        if isEmptyElement { return }
        let start = depth
        while try read() {
            switch events.pointee.kinds[cursor] {
            case NodeType.text:
                scratch.append(contentsOf: events.pointee.bytes[events.pointee.texts[cursor]])
            case NodeType.element:
                if HTMLText.blocks.contains(events.pointee.names[cursor]) { scratch.append(0x20) }
            case NodeType.endElement where events.pointee.depths[cursor] == start:
                return
            default:
                break
            }
        }
    }
}
