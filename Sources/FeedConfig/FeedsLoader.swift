public import FeedCore
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads feeds.yaml into a validated ``FeedsDocument``.
///
/// Every problem is thrown as a ``ConfigError`` located at the offending node (`file:line:col`,
/// the line, a caret, and `help:` notes), so the CLI only has to print it.
public enum FeedsLoader {
    /// The largest configuration file accepted, in bytes.
    public static let maximumFileSize = 4 << 20

    /// Reads and validates the file at `path`.
    ///
    /// - Parameters:
    ///   - path: the file, as the user named it (errors quote it as given).
    ///   - sources: the source types feeds may use.
    ///   - environment: the variables `${VAR}` references resolve against.
    /// - Throws: ``ConfigError``; without a location when the file cannot be read.
    public static func load(
        path: String, sources: [SourceDescriptor],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> FeedsDocument {
        try parse(bytes: readFile(path), path: path, sources: sources, environment: environment)
    }

    /// Validates configuration `text` as if read from `path`.
    ///
    /// - Throws: ``ConfigError``.
    public static func parse(
        text: String, path: String, sources: [SourceDescriptor],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> FeedsDocument {
        try parse(bytes: Array(text.utf8), path: path, sources: sources, environment: environment)
    }

    static func parse(
        bytes: [UInt8], path: String, sources: [SourceDescriptor], environment: [String: String]
    ) throws -> FeedsDocument {
        let file = SourceFile(path: path, text: displayText(bytes))
        let root = try YAMLParser(file: file, environment: environment).parse(bytes)
        var validator = FeedsValidator(file: file, sources: sources, home: environment["HOME"])
        return try validator.document(root)
    }

    /// The text errors quote, with lines numbered as libyaml numbers them: CR LF, CR, NEL, LS and
    /// PS each end a line (`SourceFile` splits on LF only), and a byte-order mark takes no column.
    static func displayText(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            defer { previous = scalar }
            switch scalar {
            case "\u{FEFF}" where previous == nil:
                continue
            case "\n" where previous == "\r":
                continue
            case "\r", "\u{85}", "\u{2028}", "\u{2029}":
                scalars.append("\n")
            default:
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// The file's bytes, or a ``ConfigError`` naming the path and the system's reason.
    static func readFile(_ path: String) throws -> [UInt8] {
        func failure(_ code: Int32) -> ConfigError {
            ConfigError("cannot read \(path): \(String(cString: strerror(code)))", at: nil)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= maximumFileSize else {
                throw ConfigError(
                    "cannot read \(path): larger than \(maximumFileSize / (1 << 20)) MiB, too large for a configuration file",
                    at: nil)
            }
        }
    }
}

/// Checks a parsed document against the source descriptors and builds the typed document.
struct FeedsValidator {
    static let topLevelKeys = ["defaults", "feeds", "settings"]

    let file: SourceFile
    let sources: [String: SourceDescriptor]
    /// Sorted source type names, for messages.
    let knownTypes: [String]
    /// Reads `token_file` and the like.
    let secretFiles: SecretFiles
    private var warnings: [PendingWarning] = []

    init(file: SourceFile, sources: [SourceDescriptor], home: String? = nil) {
        self.file = file
        self.secretFiles = SecretFiles(file: file, home: home)
        self.sources = Dictionary(sources.map { ($0.typeName, $0) }, uniquingKeysWith: { first, _ in first })
        self.knownTypes = self.sources.keys.sorted()
    }

    mutating func document(_ root: ConfigNode?) throws -> FeedsDocument {
        guard let root, !root.isNull else {
            throw ConfigError("\(file.path) is empty: expected a mapping with a 'feeds' list", at: nil)
        }
        guard let entries = root.entries else {
            throw ConfigError(
                "the top level must be a mapping with a 'feeds' list, found \(root.kindDescription)",
                at: root.location)
        }
        // `x-` keys are ignored: a place for anchors that feeds merge with `<<: *name`.
        for (key, _) in entries where !Self.topLevelKeys.contains(key.scalar ?? "") && !Self.isExtensionKey(key) {
            throw unknownKey(
                key, "unknown top-level key '\(key.scalar ?? "")'", candidates: Self.topLevelKeys,
                listing: "allowed top-level keys", suffix: ", and x-* keys (ignored; a place for anchors)")
        }
        let defaults = try validateDefaults(root["defaults"])
        guard let feedsNode = root["feeds"] else {
            throw ConfigError(
                "missing top-level key 'feeds' (the list of feeds to pull)", at: root.location)
        }
        guard case .sequence(let items) = feedsNode.value else {
            throw ConfigError("'feeds' must be a list of feeds, found \(feedsNode.kindDescription)", at: feedsNode.location)
        }
        if items.isEmpty {
            warnings.append(PendingWarning(location: feedsNode.location, text: "'feeds' is empty; there is nothing to pull"))
        }
        var feeds: [FeedDeclaration] = []
        var names: [String: SourceLocation] = [:]
        for (index, item) in items.enumerated() {
            feeds.append(try feed(item, number: index + 1, defaults: defaults, names: &names))
        }
        let settings = try validateSettings(root["settings"])
        return FeedsDocument(feeds: feeds, defaults: defaults, settings: settings, warnings: renderedWarnings())
    }

    // MARK: - Feeds

    private mutating func feed(
        _ item: ConfigNode, number: Int, defaults: ConfigNode?, names: inout [String: SourceLocation]
    ) throws -> FeedDeclaration {
        guard let entries = item.entries else {
            throw ConfigError(
                "each feed must be a mapping with 'name' and 'source', found \(item.kindDescription)",
                at: item.location)
        }
        let own = FeedParameters(node: item, defaults: nil, feedName: "#\(number)", sourceType: "")

        guard let name = try own.string("name"), let nameNode = own.value("name") else {
            throw ConfigError(
                "feed #\(number) is missing required parameter 'name'", at: item.location,
                notes: unsetNotes(item["name"]))
        }
        guard !name.isEmpty else { throw ConfigError("'name' must not be empty", at: nameNode.location) }
        guard Self.isSafeName(name) else {
            throw ConfigError(
                "invalid feed name '\(name)': use letters, digits, '-', '_' and '.', starting with a letter or digit",
                at: nameNode.location)
        }
        if let first = names[name] {
            throw ConfigError(
                "duplicate feed name '\(name)'", at: nameNode.location, notes: ["note: first declared at \(first)"])
        }
        names[name] = nameNode.location

        guard let sourceType = try own.string("source"), let sourceNode = own.value("source") else {
            throw ConfigError(
                "feed '\(name)' is missing required parameter 'source'", at: item.location,
                notes: unsetNotes(item["source"]) + [knownTypesNote])
        }
        guard let descriptor = sources[sourceType] else {
            var notes: [String] = []
            if let suggestion = Suggestion.closest(to: sourceType, in: knownTypes) {
                notes.append("help: did you mean '\(suggestion)'?")
            }
            throw ConfigError(
                "unknown source type '\(sourceType)'", at: sourceNode.location, notes: notes + [knownTypesNote])
        }

        let specs = FeedContext.commonParameters + descriptor.parameters
        let specsByName = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let fileKeys = SecretFiles.fileKeys(for: specs)
        let allowed = (Array(specsByName.keys) + fileKeys.keys).sorted()
        // A type that takes additional keys (the `http` source's template variables) checks them itself.
        for (key, _) in entries
        where specsByName[key.scalar ?? ""] == nil && fileKeys[key.scalar ?? ""] == nil
            && descriptor.additionalParameters == nil
        {
            let keyName = key.scalar ?? ""
            let elsewhere = knownTypes.filter { type in
                type != sourceType && sources[type]?.parameters.contains { $0.name == keyName } == true
            }
            throw unknownKey(
                key, "unknown parameter '\(keyName)' for source type '\(sourceType)'", candidates: allowed,
                listing: "parameters of \(sourceType)",
                extra: elsewhere.isEmpty ? [] : ["note: '\(keyName)' is a parameter of \(elsewhere.joined(separator: ", "))"])
        }

        // `token_file: PATH` becomes `token: <the file's text>` from here on.
        let item = try secretFiles.resolve(item, fileKeys: fileKeys)

        // Defaults apply only where the source type accepts the key.
        let applicableDefaults = defaults.map { defaults in
            ConfigNode(
                .mapping((defaults.entries ?? []).filter { specsByName[$0.key.scalar ?? ""] != nil }),
                at: defaults.location, unsetVariables: defaults.unsetVariables)
        }
        let parameters = FeedParameters(
            node: item, defaults: applicableDefaults, feedName: name, sourceType: sourceType)

        for spec in descriptor.parameters where spec.required && parameters.value(spec.name) == nil {
            throw ConfigError(
                "feed '\(name)' (\(sourceType)) is missing required parameter '\(spec.name)'", at: item.location,
                notes: unsetNotes(item[spec.name] ?? applicableDefaults?[spec.name]))
        }

        // Types of present values: the feed's own keys in file order, then inherited defaults.
        for (key, _) in entries {
            guard let keyName = key.scalar, keyName != "name", keyName != "source", let spec = specsByName[keyName]
            else { continue }
            try check(spec, in: parameters, maxPageSize: descriptor.maxPageSize)
        }
        for (key, _) in applicableDefaults?.entries ?? [] {
            guard let keyName = key.scalar, item[keyName] == nil, let spec = specsByName[keyName] else { continue }
            do {
                try check(spec, in: parameters, maxPageSize: descriptor.maxPageSize)
            } catch var error as ConfigError {
                error.notes.append("note: inherited by feed '\(name)' from 'defaults'")
                throw error
            }
        }

        for spec in specs {
            guard let node = item[spec.name] ?? applicableDefaults?[spec.name], node.isNull,
                !node.unsetVariables.isEmpty
            else { continue }
            noteUnset(node, feed: name, key: spec.name)
        }

        return FeedDeclaration(
            name: name, sourceType: sourceType, node: item, location: Self.itemLocation(item),
            parameters: parameters)
    }

    /// Checks the type (and range) of `spec`'s value when present, through the typed accessors.
    private func check(_ spec: ParameterSpec, in parameters: FeedParameters, maxPageSize: Int) throws {
        switch spec.kind {
        case .string: _ = try parameters.string(spec.name)
        case .secret: _ = try parameters.secret(spec.name)
        case .boolean: _ = try parameters.boolean(spec.name)
        case .url: _ = try parameters.url(spec.name)
        case .date: _ = try parameters.date(spec.name)
        case .mapping: _ = try parameters.mapping(spec.name)
        case .integer:
            switch spec.name {
            case "per_page":
                _ = try parameters.integer(spec.name, in: 1...max(1, maxPageSize))
            case "max_pages":
                if let pages = try parameters.integer(spec.name), pages < 1, let node = parameters.value(spec.name) {
                    throw ConfigError("'max_pages' must be at least 1, found \(pages)", at: node.location)
                }
            default:
                _ = try parameters.integer(spec.name)
            }
        }
    }

    // MARK: - Defaults

    private func validateDefaults(_ node: ConfigNode?) throws -> ConfigNode? {
        guard let node, !node.isNull else { return nil }
        guard let entries = node.entries else {
            throw ConfigError(
                "'defaults' must be a mapping of feed parameters, found \(node.kindDescription)", at: node.location)
        }
        let all = FeedContext.commonParameters + knownTypes.flatMap { sources[$0]?.parameters ?? [] }
        var kinds: [String: Set<ParameterSpec.Kind>] = [:]
        var specs: [String: ParameterSpec] = [:]
        for spec in all where spec.name != "name" && spec.name != "source" {
            kinds[spec.name, default: []].insert(spec.kind)
            specs[spec.name] = specs[spec.name] ?? spec
        }
        let fileKeys = SecretFiles.fileKeys(for: all)
        let allowed = (Array(kinds.keys) + fileKeys.keys).sorted()
        let parameters = FeedParameters(node: node, defaults: nil, feedName: "defaults", sourceType: "defaults")
        let largestPage = knownTypes.compactMap { sources[$0]?.maxPageSize }.max() ?? Int.max
        for (key, _) in entries {
            let name = key.scalar ?? ""
            if name == "name" || name == "source" {
                throw ConfigError("'\(name)' cannot be set in 'defaults': each feed gives its own", at: key.location)
            }
            if fileKeys[name] != nil { continue }
            guard let spec = specs[name] else {
                throw unknownKey(
                    key, "unknown key '\(name)' in 'defaults'", candidates: allowed, listing: "allowed keys in defaults")
            }
            // A key shared by several source types is checked per feed when kinds differ.
            if kinds[name]?.count == 1 {
                try check(spec, in: parameters, maxPageSize: largestPage)
            }
        }
        return try secretFiles.resolve(node, fileKeys: fileKeys)
    }

    // MARK: - Settings

    private mutating func validateSettings(_ node: ConfigNode?) throws -> FeedsDocument.Settings {
        var settings = FeedsDocument.Settings()
        guard let node, !node.isNull else { return settings }
        guard let entries = node.entries else {
            throw ConfigError("'settings' must be a mapping, found \(node.kindDescription)", at: node.location)
        }
        for (key, _) in entries where !FeedsDocument.Settings.keys.contains(key.scalar ?? "") {
            throw unknownKey(
                key, "unknown setting '\(key.scalar ?? "")'", candidates: FeedsDocument.Settings.keys,
                listing: "known settings")
        }
        let parameters = FeedParameters(node: node, defaults: nil, feedName: "settings", sourceType: "settings")
        let range = FeedsDocument.Settings.concurrencyRange
        if let value = try parameters.integer("max_connections_per_host", in: range) {
            settings.maxConnectionsPerHost = value
        }
        if let value = try parameters.integer("page_concurrency", in: range) {
            settings.pageConcurrency = value
        }
        if let value = try parameters.integer("retries", in: FeedsDocument.Settings.retriesRange) {
            settings.retries = value
        }
        if let value = try seconds("retry_max_wait", in: parameters) { settings.retryMaxWait = value }
        if let value = try seconds("rate_limit_wait", in: parameters) { settings.rateLimitWait = value }
        if let value = try seconds("connect_timeout", in: parameters) { settings.connectTimeout = value }
        if let value = try seconds("timeout", in: parameters) { settings.timeout = value }
        if let value = try seconds("first_byte_timeout", in: parameters) { settings.firstByteTimeout = value }
        if let value = try parameters.string("user_agent"), let valueNode = parameters.value("user_agent") {
            guard !value.isEmpty else { throw ConfigError("'user_agent' must not be empty", at: valueNode.location) }
            guard !value.contains(where: \.isNewline) else {
                throw ConfigError("'user_agent' must be a single line", at: valueNode.location)
            }
            settings.userAgent = value
        }
        for (key, value) in entries where value.isNull && !value.unsetVariables.isEmpty {
            warnings.append(
                PendingWarning(
                    location: value.location,
                    text: "\(Self.unsetPhrase(value.unsetVariables)); setting '\(key.scalar ?? "")' keeps its default"))
        }
        return settings
    }

    private func seconds(_ key: String, in parameters: FeedParameters) throws -> Double? {
        guard let node = parameters.value(key) else { return nil }
        guard let text = node.scalar else {
            throw ConfigError("'\(key)' must be a number of seconds, found \(node.kindDescription)", at: node.location)
        }
        let limit = FeedsDocument.Settings.maximumTimeout
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0,
            value <= limit
        else {
            throw ConfigError(
                "'\(key)' must be a number of seconds greater than 0 and at most \(Int(limit)), found '\(text)'",
                at: node.location)
        }
        return value
    }

    // MARK: - Messages

    private var knownTypesNote: String {
        "known source types: " + (knownTypes.isEmpty ? "(none)" : knownTypes.joined(separator: ", "))
    }

    private func unknownKey(
        _ key: ConfigNode, _ message: String, candidates: [String], listing: String, extra: [String] = [],
        suffix: String = ""
    ) -> ConfigError {
        var notes: [String] = []
        if let suggestion = Suggestion.closest(to: key.scalar ?? "", in: candidates) {
            notes.append("help: did you mean '\(suggestion)'?")
        }
        notes += extra
        notes.append("\(listing): \(candidates.sorted().joined(separator: ", "))\(suffix)")
        return ConfigError(message, at: key.location, notes: notes)
    }

    private func unsetNotes(_ node: ConfigNode?) -> [String] {
        guard let node, !node.unsetVariables.isEmpty else { return [] }
        return ["note: \(Self.unsetPhrase(node.unsetVariables)) (at \(node.location))"]
    }

    private static func unsetPhrase(_ variables: [String]) -> String {
        variables.count == 1
            ? "environment variable \(variables[0]) is not set"
            : "environment variables \(variables.joined(separator: ", ")) are not set"
    }

    /// Whether `key` is a top-level `x-…` key, ignored so it can hold anchors.
    static func isExtensionKey(_ key: ConfigNode) -> Bool {
        key.scalar?.hasPrefix("x-") == true
    }

    /// Letters, digits, `-`, `_` and `.`, starting with a letter or digit (safe in paths and URLs).
    static func isSafeName(_ name: String) -> Bool {
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
        guard let first = name.utf8.first, isAlphanumeric(first) else { return false }
        return name.utf8.allSatisfy { isAlphanumeric($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
    }

    /// The `-` that starts a block list item when it is on the node's line, else the node itself.
    static func itemLocation(_ node: ConfigNode) -> SourceLocation {
        let location = node.location
        guard let line = location.file.line(location.line) else { return location }
        let scalars = Array(line.unicodeScalars)
        var index = min(location.column - 1, scalars.count) - 1
        while index >= 0, scalars[index] == " " || scalars[index] == "\t" { index -= 1 }
        guard index >= 0, scalars[index] == "-" else { return location }
        let column = String(String.UnicodeScalarView(scalars[0..<index])).count + 1
        return SourceLocation(file: location.file, line: location.line, column: column)
    }

    // MARK: - Warnings

    private struct PendingWarning {
        var location: SourceLocation
        var text: String
        var variables: [String] = []
        var key = ""
        var feeds: [String] = []
    }

    private mutating func noteUnset(_ node: ConfigNode, feed: String, key: String) {
        if let index = warnings.firstIndex(where: {
            $0.key == key && $0.location.line == node.location.line && $0.location.column == node.location.column
        }) {
            warnings[index].feeds.append(feed)
        } else {
            warnings.append(
                PendingWarning(
                    location: node.location, text: "", variables: node.unsetVariables, key: key, feeds: [feed]))
        }
    }

    private func renderedWarnings() -> [String] {
        warnings.enumerated()
            .sorted {
                ($0.element.location.line, $0.element.location.column, $0.offset)
                    < ($1.element.location.line, $1.element.location.column, $1.offset)
            }
            .map { _, warning in
                var text = warning.text
                if !warning.feeds.isEmpty {
                    let who =
                        warning.feeds.count == 1
                        ? "feed '\(warning.feeds[0])' runs"
                        : "feeds " + warning.feeds.map { "'\($0)'" }.joined(separator: ", ") + " run"
                    text = "\(Self.unsetPhrase(warning.variables)); \(who) without '\(warning.key)'"
                }
                return "\(warning.location): warning: \(text)"
            }
    }
}
