import CYAML
import FeedCore

/// Reads one YAML document into a ``ConfigNode`` tree with libyaml's event API.
///
/// On top of libyaml it resolves aliases, applies YAML 1.1 `<<` merge keys (explicit keys win,
/// earlier mappings in `<<: [*a, *b]` win over later ones), rejects duplicate keys, interpolates
/// environment variables in scalar values (never in keys), and turns libyaml's 0-based marks
/// into 1-based ``SourceLocation``s. Every failure is a located ``ConfigError``.
struct YAMLParser {
    /// Deepest nesting of lists and mappings accepted.
    static let maximumDepth = 256
    /// Most nodes a document may expand to once aliases are resolved (guards "billion laughs").
    static let maximumNodes = 1_000_000

    /// The file being parsed, for locations.
    let file: SourceFile
    /// Resolves `${VAR}` references in scalar values.
    let interpolator: EnvironmentInterpolator

    /// Creates a parser for `file`, resolving variables against `environment`.
    init(file: SourceFile, environment: [String: String]) {
        self.file = file
        self.interpolator = EnvironmentInterpolator(environment: environment)
    }

    /// Parses `bytes` (the file's UTF-8 content); `nil` when the stream holds no document.
    func parse(_ bytes: [UInt8]) throws -> ConfigNode? {
        guard !bytes.isEmpty else { return nil }
        // yaml_parser_t must not move while in use: allocate it on the heap.
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) != 0 else {
            throw ConfigError("cannot initialise the YAML parser (out of memory)", at: nil)
        }
        defer { yaml_parser_delete(parser) }
        // The input must outlive parsing: everything happens inside this closure.
        return try bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder(
                reader: EventReader(parser: parser, file: file, input: buffer), interpolator: interpolator)
            return try builder.document()
        }
    }
}

/// A libyaml event copied into Swift values (the C event is deleted right away).
private struct YAMLEvent {
    enum ScalarStyle {
        case plain, singleQuoted, doubleQuoted, block
    }

    enum Kind {
        case streamStart, streamEnd, documentStart, documentEnd
        case alias(String)
        case scalar(String, anchor: String?, style: ScalarStyle, implicit: Bool)
        case sequenceStart(anchor: String?)
        case sequenceEnd
        case mappingStart(anchor: String?)
        case mappingEnd
    }

    var kind: Kind
    var location: SourceLocation
}

/// Pulls events from a libyaml parser. Owned by one parse call; not `Sendable`.
private struct EventReader {
    let parser: UnsafeMutablePointer<yaml_parser_t>
    let file: SourceFile
    let input: UnsafeBufferPointer<UInt8>

    func next() throws -> YAMLEvent {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) != 0 else { throw syntaxError() }
        defer { yaml_event_delete(&event) }
        let location = self.location(event.start_mark)
        switch event.type {
        case YAML_STREAM_START_EVENT:
            return YAMLEvent(kind: .streamStart, location: location)
        case YAML_STREAM_END_EVENT:
            return YAMLEvent(kind: .streamEnd, location: location)
        case YAML_DOCUMENT_START_EVENT:
            return YAMLEvent(kind: .documentStart, location: location)
        case YAML_DOCUMENT_END_EVENT:
            return YAMLEvent(kind: .documentEnd, location: location)
        case YAML_ALIAS_EVENT:
            return YAMLEvent(kind: .alias(Self.string(event.data.alias.anchor) ?? ""), location: location)
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text =
                scalar.value.map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: scalar.length), as: UTF8.self)
                } ?? ""
            let style: YAMLEvent.ScalarStyle
            switch scalar.style {
            case YAML_SINGLE_QUOTED_SCALAR_STYLE: style = .singleQuoted
            case YAML_DOUBLE_QUOTED_SCALAR_STYLE: style = .doubleQuoted
            case YAML_LITERAL_SCALAR_STYLE, YAML_FOLDED_SCALAR_STYLE: style = .block
            default: style = .plain
            }
            return YAMLEvent(
                kind: .scalar(
                    text, anchor: Self.string(scalar.anchor), style: style, implicit: scalar.plain_implicit != 0),
                location: location)
        case YAML_SEQUENCE_START_EVENT:
            return YAMLEvent(
                kind: .sequenceStart(anchor: Self.string(event.data.sequence_start.anchor)), location: location)
        case YAML_SEQUENCE_END_EVENT:
            return YAMLEvent(kind: .sequenceEnd, location: location)
        case YAML_MAPPING_START_EVENT:
            return YAMLEvent(
                kind: .mappingStart(anchor: Self.string(event.data.mapping_start.anchor)), location: location)
        case YAML_MAPPING_END_EVENT:
            return YAMLEvent(kind: .mappingEnd, location: location)
        default:
            throw ConfigError("invalid YAML: unexpected parser event \(event.type.rawValue)", at: location)
        }
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: UnsafePointer($0)) }
    }

    func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    /// The location of byte `offset` of the input (reader errors carry no mark).
    private func location(offset: Int) -> SourceLocation {
        let end = min(max(0, offset), input.count)
        var line = 1
        var column = 1
        for byte in input[0..<end] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return SourceLocation(file: file, line: line, column: column)
    }

    /// libyaml's own description of why parsing stopped, located at its problem mark.
    private func syntaxError() -> ConfigError {
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? "unknown syntax error"
        switch state.error {
        case YAML_MEMORY_ERROR:
            return ConfigError("cannot parse YAML: out of memory", at: nil)
        case YAML_READER_ERROR:
            return ConfigError("invalid YAML: \(problem)", at: location(offset: state.problem_offset))
        default:
            var notes: [String] = []
            if let context = state.context.map({ String(cString: $0) }) {
                notes.append("note: \(context) that starts at \(location(state.context_mark))")
            }
            let at = location(state.problem_mark)
            if let line = file.line(at.line), Array(line.unicodeScalars).dropFirst(at.column - 1).first == "\t" {
                notes.append("help: YAML does not allow tabs here: indent with spaces")
            }
            if state.context.map({ String(cString: $0) })?.contains("flow") == true,
                file.line(at.line)?.contains("${") == true
            {
                notes.append("help: inside [ ] or { }, quote a value that uses ${VAR}: \"${VAR}\"")
            }
            return ConfigError("invalid YAML: \(problem)", at: at, notes: notes)
        }
    }
}

/// Builds the node tree from events, keeping the table of anchors.
private struct TreeBuilder {
    /// A built node and how many nodes it expands to.
    struct Built {
        var node: ConfigNode
        var size: Int
    }

    let reader: EventReader
    let interpolator: EnvironmentInterpolator
    var anchors: [String: Built] = [:]
    var openAnchors: Set<String> = []

    init(reader: EventReader, interpolator: EnvironmentInterpolator) {
        self.reader = reader
        self.interpolator = interpolator
    }

    mutating func document() throws -> ConfigNode? {
        var event = try reader.next()
        if case .streamStart = event.kind { event = try reader.next() }
        if case .streamEnd = event.kind { return nil }
        guard case .documentStart = event.kind else { throw unexpected(event) }
        let root = try node(from: reader.next(), isKey: false, depth: 0).node
        let end = try reader.next()
        guard case .documentEnd = end.kind else { throw unexpected(end) }
        let after = try reader.next()
        switch after.kind {
        case .streamEnd:
            return root
        case .documentStart:
            throw ConfigError(
                "a configuration file holds a single YAML document, found a second one", at: after.location,
                notes: ["help: remove this '---' and what follows, or merge it into the first document"])
        default:
            throw unexpected(after)
        }
    }

    private func unexpected(_ event: YAMLEvent) -> ConfigError {
        ConfigError("invalid YAML: unexpected \(event.kind)", at: event.location)
    }

    private mutating func node(from event: YAMLEvent, isKey: Bool, depth: Int) throws -> Built {
        switch event.kind {
        case .scalar(let text, let anchor, let style, let implicit):
            var node = ConfigNode(.scalar(text, plain: style == .plain && implicit), at: event.location)
            if !isKey {
                let anchoring: EnvironmentInterpolator.Anchoring
                switch style {
                case .plain: anchoring = .inline(offset: 0)
                case .singleQuoted, .doubleQuoted: anchoring = .inline(offset: 1)
                case .block: anchoring = .node
                }
                let (value, unset) = try interpolator.interpolate(text, at: event.location, anchoring: anchoring)
                node = ConfigNode(
                    .scalar(value, plain: style == .plain && implicit), at: event.location, unsetVariables: unset,
                    variables: EnvironmentInterpolator.referencedVariables(in: text))
            }
            let built = Built(node: node, size: 1)
            if let anchor { anchors[anchor] = built }
            return built
        case .alias(let name):
            if let built = anchors[name] { return built }
            if openAnchors.contains(name) {
                throw ConfigError("alias '*\(name)' refers to a node that contains it", at: event.location)
            }
            throw ConfigError(
                "unknown alias '*\(name)'", at: event.location,
                notes: ["note: an anchor '&\(name)' must be defined before it is used"])
        case .sequenceStart(let anchor):
            try checkDepth(depth, at: event.location)
            if let anchor { openAnchors.insert(anchor) }
            var items: [ConfigNode] = []
            var size = 1
            while true {
                let next = try reader.next()
                if case .sequenceEnd = next.kind { break }
                let item = try node(from: next, isKey: false, depth: depth + 1)
                items.append(item.node)
                size += item.size
                try checkSize(size, at: event.location)
            }
            let built = Built(node: ConfigNode(.sequence(items), at: event.location), size: size)
            if let anchor {
                openAnchors.remove(anchor)
                anchors[anchor] = built
            }
            return built
        case .mappingStart(let anchor):
            try checkDepth(depth, at: event.location)
            if let anchor { openAnchors.insert(anchor) }
            let built = try mapping(at: event.location, depth: depth)
            if let anchor {
                openAnchors.remove(anchor)
                anchors[anchor] = built
            }
            return built
        default:
            throw unexpected(event)
        }
    }

    private mutating func mapping(at location: SourceLocation, depth: Int) throws -> Built {
        var entries: [(key: ConfigNode, value: ConfigNode)] = []
        var explicitKeys: [String: SourceLocation] = [:]
        var merge: (key: ConfigNode, position: Int, sources: [ConfigNode])?
        var size = 1
        while true {
            let next = try reader.next()
            if case .mappingEnd = next.kind { break }
            let key = try node(from: next, isKey: true, depth: depth + 1)
            guard case .scalar(let name, let plain) = key.node.value else {
                throw ConfigError(
                    "mapping keys must be scalars, found \(key.node.kindDescription)", at: key.node.location)
            }
            let value = try node(from: reader.next(), isKey: false, depth: depth + 1)
            size += key.size + value.size
            try checkSize(size, at: location)
            if plain && name == "<<" {
                if let first = merge {
                    throw ConfigError(
                        "duplicate merge key '<<'", at: key.node.location,
                        notes: [
                            "note: first defined at \(first.key.location)",
                            "help: merge several mappings with '<<: [*first, *second]'",
                        ])
                }
                merge = (key.node, entries.count, try mergeSources(value.node))
                continue
            }
            if let first = explicitKeys[name] {
                throw ConfigError(
                    "duplicate key '\(name)' in mapping", at: key.node.location,
                    notes: ["note: first defined at \(first)"])
            }
            explicitKeys[name] = key.node.location
            entries.append((key.node, value.node))
        }
        if let merge {
            // Explicit keys win; among merged mappings, the first to give a key wins.
            var merged: [(key: ConfigNode, value: ConfigNode)] = []
            var seen = Set(explicitKeys.keys)
            for source in merge.sources {
                for entry in source.entries ?? [] {
                    guard let name = entry.key.scalar, !seen.contains(name) else { continue }
                    seen.insert(name)
                    merged.append(entry)
                }
            }
            entries.insert(contentsOf: merged, at: merge.position)
        }
        return Built(node: ConfigNode(.mapping(entries), at: location), size: size)
    }

    /// The mappings a `<<` value merges: one mapping or a list of mappings.
    private func mergeSources(_ value: ConfigNode) throws -> [ConfigNode] {
        switch value.value {
        case .mapping:
            return [value]
        case .sequence(let items):
            for item in items where item.entries == nil {
                throw ConfigError(
                    "'<<' merges mappings, found \(item.kindDescription) in its list", at: item.location)
            }
            return items
        case .scalar:
            throw ConfigError(
                "'<<' merges a mapping or a list of mappings (such as *defaults), found \(value.kindDescription)",
                at: value.location)
        }
    }

    private func checkDepth(_ depth: Int, at location: SourceLocation) throws {
        guard depth < YAMLParser.maximumDepth else {
            throw ConfigError("nesting is too deep (more than \(YAMLParser.maximumDepth) levels)", at: location)
        }
    }

    private func checkSize(_ size: Int, at location: SourceLocation) throws {
        guard size <= YAMLParser.maximumNodes else {
            throw ConfigError(
                "document is too large once aliases are expanded (more than \(YAMLParser.maximumNodes) nodes)",
                at: location)
        }
    }
}
