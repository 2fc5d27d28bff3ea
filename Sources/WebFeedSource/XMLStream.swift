import CLibXML2
import Foundation

/// One attribute of the current element.
struct XMLAttribute {
    var namespace: String
    var localName: String
    var value: String
}

/// A libxml2 `xmlTextReader` over an in-memory document: pull-style, one node at a time, so
/// memory stays proportional to the document rather than to a tree of it.
///
/// Options: `XML_PARSE_NONET` (no network), no `XML_PARSE_NOENT` (entities are never
/// substituted: an entity reference is a node this type skips), no `XML_PARSE_DTDLOAD`/`DTDATTR`
/// (no external DTD or entity is loaded), no `XML_PARSE_HUGE` (libxml2's limits on text-node size,
/// nesting depth and entity amplification stay on). Errors go to this reader's handler, never to
/// stderr. The type owns the C reader and frees it in `deinit`; it is used by one parse on one
/// thread and never shared.
final class XMLStream {
    /// libxml2's reader node types used here.
    enum NodeType {
        static let element = Int32(XML_READER_TYPE_ELEMENT.rawValue)
        static let text = Int32(XML_READER_TYPE_TEXT.rawValue)
        static let cdata = Int32(XML_READER_TYPE_CDATA.rawValue)
        static let whitespace = Int32(XML_READER_TYPE_WHITESPACE.rawValue)
        static let significantWhitespace = Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue)
        static let endElement = Int32(XML_READER_TYPE_END_ELEMENT.rawValue)
    }

    /// The first error libxml2 reported, with its line.
    final class ErrorBox {
        var message: String?
        var line: Int?
    }

    /// Parser options: see the type's documentation.
    static let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)

    /// libxml2's one-time initialisation, run before the first reader is made.
    private static let initialised: Bool = {
        xmlInitParser()
        return true
    }()

    private let reader: xmlTextReaderPtr
    private let errors = ErrorBox()
    /// Names already turned into Strings, by their libxml2 pointer. The reader interns element
    /// and attribute names and namespace URIs in its dictionary (`xmlTextReaderConstString`
    /// returns the dictionary's copy, which lives as long as the reader), so one pointer is one
    /// name: each distinct name becomes a String once per document, not once per node. A known
    /// namespace URI maps to ``XMLNamespace``'s own constant, so comparing against it is a
    /// comparison of identical Strings.
    private var names: [UnsafePointer<xmlChar>: String] = [:]
    /// The bytes of the text being collected by ``text()``, reused from one call to the next.
    private var scratch: [UInt8] = []

    /// The chunk source of a reader made by ``init(chunks:url:encoding:)``, kept alive as long
    /// as the C reader that calls it.
    private let chunks: XMLChunkSource?

    /// A reader over `bytes` (which must outlive it); `encoding` overrides the document's own
    /// declaration (a Content-Type charset). `nil` when libxml2 refuses the encoding name.
    init?(bytes: UnsafeRawBufferPointer, url: String, encoding: String?) {
        _ = Self.initialised
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
            let reader = xmlReaderForMemory(base, Int32(clamping: bytes.count), url, encoding, Self.options)
        else { return nil }
        self.reader = reader
        self.chunks = nil
        installErrorHandler()
    }

    /// A reader pulling the document from `chunks` as it goes (libxml2's `xmlReaderForIO`): the
    /// document is never held whole, so memory stays bounded whatever its size.
    init?(chunks: XMLChunkSource, url: String, encoding: String?) {
        _ = Self.initialised
        let context = Unmanaged.passUnretained(chunks).toOpaque()
        guard
            let reader = xmlReaderForIO(
                { context, buffer, length in
                    guard let context, let buffer, length > 0 else { return -1 }
                    let source = Unmanaged<XMLChunkSource>.fromOpaque(context).takeUnretainedValue()
                    return Int32(source.fill(UnsafeMutableRawBufferPointer(start: buffer, count: Int(length))))
                }, nil, context, url, encoding, Self.options)
        else { return nil }
        self.reader = reader
        self.chunks = chunks
        installErrorHandler()
    }

    /// Routes libxml2's errors for this reader to `errors` (never to stderr).
    private func installErrorHandler() {
        let box = Unmanaged.passUnretained(errors).toOpaque()
        xmlTextReaderSetStructuredErrorHandler(
            reader,
            { context, error in
                guard let context, let error else { return }
                let box = Unmanaged<ErrorBox>.fromOpaque(context).takeUnretainedValue()
                guard box.message == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
                box.message = error.pointee.message.map { String(cString: $0) }?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "malformed XML"
                box.line = Int(error.pointee.line)
            }, box)
    }

    deinit { xmlFreeTextReader(reader) }

    /// Moves to the next node; `false` at the end of the document. Throws the parser's error.
    func read() throws(FeedParseError) -> Bool {
        let result = xmlTextReaderRead(reader)
        if result == 1 { return true }
        if result == 0, errors.message == nil, chunks?.failure == nil { return false }
        throw failure()
    }

    /// The error libxml2 reported (or a generic one), as a ``FeedParseError``; a chunk source's
    /// own failure (a read error, the size limit) comes first.
    func failure() -> FeedParseError {
        if let failed = chunks?.failure { return failed }
        let message = errors.message ?? "malformed XML"
        let line = errors.line ?? Int(xmlTextReaderGetParserLineNumber(reader))
        return FeedParseError("malformed XML: \(FeedSniffer.printable(message, limit: 200))", line: line > 0 ? line : nil)
    }

    /// The current node's type.
    var nodeType: Int32 { xmlTextReaderNodeType(reader) }
    /// The current node's depth (the root element is 0).
    var depth: Int { Int(xmlTextReaderDepth(reader)) }
    /// Whether the current element is written `<x/>` (no end-element node follows).
    var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(reader) == 1 }
    /// The current node's local name.
    var localName: String { interned(xmlTextReaderConstLocalName(reader)) }
    /// The current node's namespace URI, or `""`.
    var namespace: String { interned(xmlTextReaderConstNamespaceUri(reader)) }

    /// The String of a name libxml2 returned, built once per distinct name (see `names`).
    private func interned(_ name: UnsafePointer<xmlChar>?) -> String {
        guard let name, let key = xmlTextReaderConstString(reader, name) else { return "" }
        if let known = names[key] { return known }
        let built = String(cString: key)
        let shared = XMLNamespace.all.first { $0 == built } ?? built
        names[key] = shared
        return shared
    }
    /// The current text node's value.
    var value: String { xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? "" }
    /// The parser's current line.
    var line: Int { Int(xmlTextReaderGetParserLineNumber(reader)) }

    /// The current element's attributes (namespace declarations included).
    func attributes() -> [XMLAttribute] {
        guard xmlTextReaderHasAttributes(reader) == 1 else { return [] }
        var out: [XMLAttribute] = []
        var more = xmlTextReaderMoveToFirstAttribute(reader)
        while more == 1 {
            out.append(XMLAttribute(namespace: namespace, localName: localName, value: value))
            more = xmlTextReaderMoveToNextAttribute(reader)
        }
        xmlTextReaderMoveToElement(reader)
        return out
    }

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

    /// Collects ``text()``'s bytes into `scratch`: no String per text node.
    private func collectText() throws(FeedParseError) {
        scratch.removeAll(keepingCapacity: true)
        if isEmptyElement { return }
        let start = depth
        while try read() {
            switch nodeType {
            case NodeType.text, NodeType.cdata, NodeType.whitespace, NodeType.significantWhitespace:
                if let value = xmlTextReaderConstValue(reader) {
                    scratch.append(contentsOf: UnsafeBufferPointer(start: value, count: strlen(value)))
                }
            case NodeType.element:
                if HTMLText.blocks.contains(localName) { scratch.append(0x20) }
            case NodeType.endElement where depth == start:
                return
            default:
                break
            }
        }
    }
}
