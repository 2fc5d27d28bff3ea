import CLibXML2
import Foundation

/// The nodes libxml2's SAX2 parser reported for ``XMLStream``, in arrays side by side (one
/// position per node), and the SAX2 handler that records them.
///
/// Only the document's own nodes are recorded (its parser context is ``context``): elements with
/// their attributes, their ends, and text (character data and CDATA, adjacent runs merged).
/// Comments, processing instructions and entity references are left out, as the reader left
/// them to its callers. An element whose end comes right after its start (`<x/>` or `<x></x>`)
/// is marked empty and gets no end node. libxml2 also runs the handler over each entity's
/// replacement text, once, to check it, in a context of its own: that goes to libxml2's own SAX2
/// functions, which keep it for the entity, as they do under a reader.
///
/// A value in memory the owning ``XMLStream`` allocates (its parser context's `_private` points
/// at it), so the callbacks and the reader reach it without Swift's dynamic exclusivity checks
/// on class properties (which took a fifth of the parse's instructions: libxml2 reports escaped
/// markup such as `&lt;p&gt;` in runs of one character). Used by one ``XMLStream`` on one thread
/// and never shared.
struct XMLEvents {
    /// The namespace libxml2 gives namespace declarations read as attributes.
    static let xmlnsNamespace = "http://www.w3.org/2000/xmlns/"

    private(set) var kinds: [Int32] = []
    private(set) var depths: [Int32] = []
    private(set) var lines: [Int32] = []
    private(set) var empties: [Bool] = []
    private(set) var names: [String] = []
    private(set) var namespaces: [String] = []
    private(set) var attributes: [[XMLAttribute]] = []
    /// Each text node's bytes in ``bytes``.
    private(set) var texts: [Range<Int>] = []
    /// The text nodes' UTF-8 bytes, one after the other.
    private(set) var bytes: [UInt8] = []
    /// How many nodes are recorded.
    var count: Int { kinds.count }
    /// Whether libxml2 stopped at a fatal error (or the input failed): no more pushes.
    private(set) var stopped = false
    /// The first error libxml2 reported, and its line.
    private(set) var errorMessage: String?
    private(set) var errorLine: Int?

    /// The document's parser context (the entity checks run in contexts of their own).
    private var context: xmlParserCtxtPtr?
    /// The depth of the next element.
    private var level: Int32 = 0
    /// Whether the last node recorded is text (the next run of characters joins it).
    private var lastIsText = false
    /// Names already turned into Strings, by their libxml2 pointer. The parser interns element
    /// and attribute names and namespace URIs in its dictionary (which lives as long as the
    /// context), so one pointer is one name: each distinct name becomes a String once per
    /// document, not once per node. A known namespace URI maps to ``XMLNamespace``'s own
    /// constant, so comparing against it is a comparison of identical Strings.
    private var interned: [UnsafePointer<xmlChar>: String] = [:]

    /// Ties the recorder to the document's context.
    mutating func attach(context: xmlParserCtxtPtr) {
        self.context = context
    }

    /// Forgets the recorded nodes (they have been read), keeping the arrays' storage.
    mutating func removeAll() {
        lastIsText = false
        kinds.removeAll(keepingCapacity: true)
        depths.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
        empties.removeAll(keepingCapacity: true)
        names.removeAll(keepingCapacity: true)
        namespaces.removeAll(keepingCapacity: true)
        attributes.removeAll(keepingCapacity: true)
        texts.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
    }

    /// No more pushes: libxml2 stopped, or the input failed.
    mutating func stop() { stopped = true }

    private mutating func append(_ kind: Int32, name: String = "", namespace: String = "", attributes list: [XMLAttribute] = [], text: Range<Int> = 0..<0) {
        kinds.append(kind)
        depths.append(level)
        lines.append(Int32(clamping: context?.pointee.input?.pointee.line ?? 0))
        empties.append(false)
        names.append(name)
        namespaces.append(namespace)
        attributes.append(list)
        texts.append(text)
        lastIsText = kind == XMLStream.NodeType.text
    }

    /// The String of a name from libxml2's dictionary (see `interned`).
    private mutating func name(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        if let known = interned[pointer] { return known }
        let built = String(cString: pointer)
        let shared = XMLNamespace.all.first { $0 == built } ?? built
        interned[pointer] = shared
        return shared
    }

    /// An attribute value as SAX2 hands it over without entity substitution: normalised, with a
    /// `&` (from `&amp;` or `&#38;`) written `&#38;` and another entity's reference left as
    /// written (never expanded).
    private static func attributeValue(_ start: UnsafePointer<xmlChar>, _ end: UnsafePointer<xmlChar>) -> String {
        let raw = UnsafeBufferPointer(start: start, count: max(0, end - start))
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        let ampersand = Array("&#38;".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            if raw[index] == UInt8(ascii: "&"), index + 5 <= raw.count, raw[index..<index + 5].elementsEqual(ampersand) {
                out.append(UInt8(ascii: "&"))
                index += 5
            } else {
                out.append(raw[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    mutating func startElement(
        _ localName: UnsafePointer<xmlChar>?, _ uri: UnsafePointer<xmlChar>?, _ declarationCount: Int32,
        _ declarations: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, _ attributeCount: Int32,
        _ values: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        var list: [XMLAttribute] = []
        if declarationCount > 0 || attributeCount > 0 {
            list.reserveCapacity(Int(declarationCount + attributeCount))
            if let declarations {
                for index in 0..<Int(declarationCount) {
                    let prefix = declarations[2 * index]
                    let value = declarations[2 * index + 1].map { String(cString: $0) } ?? ""
                    list.append(XMLAttribute(namespace: Self.xmlnsNamespace, localName: prefix == nil ? "xmlns" : name(prefix), value: value))
                }
            }
            if let values {
                for index in 0..<Int(attributeCount) {
                    let field = values + 5 * index
                    guard let start = field[3], let end = field[4] else { continue }
                    list.append(XMLAttribute(namespace: name(field[2]), localName: name(field[0]), value: Self.attributeValue(start, end)))
                }
            }
        }
        append(XMLStream.NodeType.element, name: name(localName), namespace: name(uri), attributes: list)
        level += 1
    }

    mutating func endElement() {
        level -= 1
        if let last = kinds.indices.last, kinds[last] == XMLStream.NodeType.element, depths[last] == level {
            empties[last] = true
            return
        }
        append(XMLStream.NodeType.endElement)
    }

    mutating func characters(_ characters: UnsafePointer<xmlChar>?, _ length: Int32) {
        guard let characters, length > 0 else { return }
        if lastIsText {
            if length == 1 { bytes.append(characters.pointee) } else {
                bytes.append(contentsOf: UnsafeBufferPointer(start: characters, count: Int(length)))
            }
            texts[texts.count - 1] = texts[texts.count - 1].lowerBound..<bytes.count
            return
        }
        let run = UnsafeBufferPointer(start: characters, count: Int(length))
        let start = bytes.count
        bytes.append(contentsOf: run)
        append(XMLStream.NodeType.text, text: start..<bytes.count)
    }

    mutating func record(error: UnsafeMutablePointer<xmlError>) {
        guard errorMessage == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        errorMessage = error.pointee.message.map { String(cString: $0) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "malformed XML"
        errorLine = Int(error.pointee.line)
    }

    /// The recorder behind a SAX callback's context, when that context is the document's own
    /// (not an entity check's).
    fileprivate static func recorder(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<XMLEvents>? {
        guard let context else { return nil }
        let parser = context.assumingMemoryBound(to: xmlParserCtxt.self)
        guard let owner = parser.pointee._private else { return nil }
        let events = owner.assumingMemoryBound(to: XMLEvents.self)
        return events.pointee.context == parser ? events : nil
    }

    /// The recorder for an error from the document's context or an entity check's.
    fileprivate static func owner(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<XMLEvents>? {
        guard let context else { return nil }
        let parser = context.assumingMemoryBound(to: xmlParserCtxt.self)
        return parser.pointee._private?.assumingMemoryBound(to: XMLEvents.self)
    }

    /// libxml2's SAX2 handler (entities, DTD, document) with the document's nodes recorded here
    /// and errors recorded here, never printed to stderr. (A value made per parser: libxml2
    /// copies it into the context.)
    static func makeHandler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        xmlSAXVersion(&handler, 2)
        handler.startElementNs = { context, localName, prefix, uri, declarationCount, declarations, attributeCount, defaulted, values in
            guard let events = XMLEvents.recorder(context) else {
                xmlSAX2StartElementNs(
                    context, localName, prefix, uri, declarationCount, declarations, attributeCount, defaulted, values)
                return
            }
            events.pointee.startElement(localName, uri, declarationCount, declarations, attributeCount, values)
        }
        handler.endElementNs = { context, localName, prefix, uri in
            guard let events = XMLEvents.recorder(context) else {
                xmlSAX2EndElementNs(context, localName, prefix, uri)
                return
            }
            events.pointee.endElement()
        }
        handler.characters = { context, characters, length in
            guard let events = XMLEvents.recorder(context) else { return xmlSAX2Characters(context, characters, length) }
            events.pointee.characters(characters, length)
        }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = { context, characters, length in
            guard let events = XMLEvents.recorder(context) else { return xmlSAX2CDataBlock(context, characters, length) }
            events.pointee.characters(characters, length)
        }
        handler.reference = { context, name in
            if XMLEvents.recorder(context) == nil { xmlSAX2Reference(context, name) }
        }
        handler.comment = { context, value in
            if XMLEvents.recorder(context) == nil { xmlSAX2Comment(context, value) }
        }
        handler.processingInstruction = { context, target, data in
            if XMLEvents.recorder(context) == nil { xmlSAX2ProcessingInstruction(context, target, data) }
        }
        handler.warning = nil
        handler.error = nil
        handler.fatalError = nil
        handler.serror = { context, error in
            guard let error, let events = XMLEvents.owner(context) else { return }
            events.pointee.record(error: error)
        }
        return handler
    }
}
