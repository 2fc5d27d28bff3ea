import FeedCore
import FeedSearch
import Foundation

/// Checks a parsed document against the source descriptors and builds the typed document.
struct FeedsValidator {
    static let topLevelKeys = ["defaults", "feeds", "settings", "views"]

    let file: SourceFile
    let sources: [String: SourceDescriptor]
    /// Sorted source type names, for messages.
    let knownTypes: [String]
    /// Reads `token_file` and the like.
    let secretFiles: SecretFiles
    /// The process environment: credentials a feed does not set, did-you-means for unset variables.
    let environment: [String: String]
    /// `defaults:` as written (before `token_file` is read), to say where a credential comes from.
    var rawDefaults: ConfigNode?
    var warnings: [PendingWarning] = []
    /// The errors found so far, in the order found (``ConfigErrors`` sorts them by line).
    var errors: [ConfigError] = []

    init(file: SourceFile, sources: [SourceDescriptor], home: String? = nil, environment: [String: String] = [:]) {
        self.file = file
        self.environment = environment
        self.secretFiles = SecretFiles(file: file, home: home)
        self.sources = Dictionary(sources.map { ($0.typeName, $0) }, uniquingKeysWith: { first, _ in first })
        self.knownTypes = self.sources.keys.sorted()
    }

    /// The document of `root`'s valid feeds; every other problem is appended to ``errors``.
    ///
    /// - Throws: ``ConfigError`` when nothing can be checked (an empty file, a top level that is
    ///   not a mapping).
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
            errors.append(
                unknownKey(
                    key, "unknown top-level key '\(key.scalar ?? "")'", candidates: Self.topLevelKeys,
                    listing: "allowed top-level keys", suffix: ", and x-* keys (ignored; a place for anchors)"))
        }
        rawDefaults = root["defaults"]
        let defaults = validateDefaults(root["defaults"])
        var feeds: [FeedDeclaration] = []
        let globalFilters = validateGlobalFilters(root["settings"]?["filters"])
        if let items = feedItems(root) {
            var names: [String: SourceLocation] = [:]
            for (index, item) in items.enumerated() {
                // A feed with an error is skipped; the next one is still checked.
                do {
                    feeds.append(try feed(item, number: index + 1, defaults: defaults, names: &names))
                } catch let error as ConfigError {
                    errors.append(error)
                }
            }
        }
        let settings = validateSettings(root["settings"])
        let views = validateViews(root["views"])
        let filters = FilterRules(
            global: globalFilters, feeds: Dictionary(feeds.map { ($0.name, $0.filters) }, uniquingKeysWith: { first, _ in first }))
        noteQueryNames(root, feeds: feeds)
        var document = FeedsDocument(
            feeds: feeds, defaults: defaults, settings: settings, warnings: renderedWarnings(),
            credentialWarnings: renderedWarnings(credentialOnly: true))
        document.views = views
        document.filters = filters
        return document
    }

    /// The items of the top-level `feeds` list; `nil` (with an error recorded) when it is missing
    /// or not a list.
    mutating func feedItems(_ root: ConfigNode) -> [ConfigNode]? {
        guard let feedsNode = root["feeds"] else {
            // A misspelt `feeds:` was reported already, with its did-you-mean.
            let misspelt = (root.entries ?? []).contains { Suggestion.closest(to: $0.key.scalar ?? "", in: Self.topLevelKeys) == "feeds" }
            if !misspelt {
                errors.append(ConfigError("missing top-level key 'feeds' (the list of feeds to pull)", at: root.location))
            }
            return nil
        }
        guard case .sequence(let items) = feedsNode.value else {
            errors.append(
                ConfigError("'feeds' must be a list of feeds, found \(feedsNode.kindDescription)", at: feedsNode.location))
            return nil
        }
        if items.isEmpty {
            warnings.append(PendingWarning(location: feedsNode.location, text: "'feeds' is empty; there is nothing to pull"))
        }
        return items
    }

    /// Appends `body`'s ``ConfigError`` to `found`, if it throws one, and returns its value otherwise.
    static func collecting<T>(_ found: inout [ConfigError], _ body: () throws -> T?) -> T? {
        do {
            return try body()
        } catch let error as ConfigError {
            found.append(error)
        } catch {
            found.append(ConfigError("\(error)", at: nil))
        }
        return nil
    }

    // MARK: - Feeds

    mutating func feed(
        _ item: ConfigNode, number: Int, defaults: ConfigNode?, names: inout [String: SourceLocation]
    ) throws -> FeedDeclaration {
        guard let entries = item.entries else {
            throw ConfigError(
                "each feed must be a mapping with 'name' and 'source', found \(item.kindDescription)",
                at: item.location)
        }
        let own = FeedParameters(node: item, defaults: nil, feedName: "#\(number)", sourceType: "")

        guard let name = try own.string("name"), let nameNode = own.value("name") else {
            let misspelt = Self.misspelt("name", in: entries, known: anyParameterName)
            throw ConfigError(
                "feed #\(number) is missing required parameter 'name'", at: misspelt?.location ?? item.location,
                notes: misspeltNotes(misspelt, "name") + unsetNotes(item["name"]))
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
            let misspelt = Self.misspelt("source", in: entries, known: anyParameterName)
            throw ConfigError(
                "feed '\(name)' is missing required parameter 'source'", at: misspelt?.location ?? item.location,
                notes: misspeltNotes(misspelt, "source") + unsetNotes(item["source"]) + [knownTypesNote])
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

        // Said before `token_file: PATH` becomes `token: <the file's text>` below.
        let credentialFound = descriptor.credential.map { credentialOrigin($0, in: item) }
        var item = try secretFiles.resolve(item, fileKeys: fileKeys)
        // A type with an `env:` mapping (exec plugins) gets `NAME_file` secrets in it too.
        if specsByName["env"]?.kind == .mapping { item = try secretFiles.resolveEnvironment(in: item) }

        // Defaults apply only where the source type accepts the key.
        let applicableDefaults = defaults.map { defaults in
            ConfigNode(
                .mapping((defaults.entries ?? []).filter { specsByName[$0.key.scalar ?? ""] != nil }),
                at: defaults.location, unsetVariables: defaults.unsetVariables)
        }
        var parameters = FeedParameters(
            node: item, defaults: applicableDefaults, feedName: name, sourceType: sourceType)
        var credential = credentialFound?.use
        if let spec = descriptor.credential, let found = credentialFound {
            if found.fallsBackToEnvironment(spec),
                let (variable, value) = environmentCredential(spec, parameters: parameters, descriptor: descriptor)
            {
                item = Self.adding(spec.parameter, value: value, to: item)
                parameters = FeedParameters(
                    node: item, defaults: applicableDefaults, feedName: name, sourceType: sourceType)
                credential = CredentialUse(parameter: spec.parameter, origin: .environment(variable))
            }
            noteCredential(found, feed: name)
        }

        for spec in descriptor.parameters where spec.required && parameters.value(spec.name) == nil {
            let misspelt = Self.misspelt(spec.name, in: entries, known: Set(specsByName.keys))
            throw ConfigError(
                "feed '\(name)' (\(sourceType)) is missing required parameter '\(spec.name)'",
                at: misspelt?.location ?? item.location,
                notes: misspeltNotes(misspelt, spec.name) + unsetNotes(item[spec.name] ?? applicableDefaults?[spec.name]))
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
            let isCredential = spec.name == descriptor.credential?.parameter
            // A type that takes no credential from `defaults:` is not said to run without it, nor
            // is a feed that found it in the environment after all.
            let inherited = isCredential && descriptor.credential?.inheritsDefaults == false ? nil : applicableDefaults?[spec.name]
            if isCredential, case .environment = credential?.origin { continue }
            guard let node = item[spec.name] ?? inherited, node.isNull,
                !node.unsetVariables.isEmpty
            else { continue }
            noteUnset(node, feed: name, key: spec.name, credential: isCredential)
        }

        // A declared default (ParameterSpec.default) applies where neither the feed nor `defaults:`
        // gives the key, so the source reads it as if written (located at the feed's entry).
        let declared = specs.compactMap { spec -> (key: ConfigNode, value: ConfigNode)? in
            guard let value = spec.default, item[spec.name] == nil, applicableDefaults?[spec.name] == nil else { return nil }
            return (ConfigNode(.scalar(spec.name, plain: true), at: item.location),
                ConfigNode(.scalar(value, plain: true), at: item.location))
        }
        if !declared.isEmpty {
            let merged = ConfigNode(
                .mapping((applicableDefaults?.entries ?? []) + declared), at: applicableDefaults?.location ?? item.location,
                unsetVariables: applicableDefaults?.unsetVariables ?? [])
            parameters = FeedParameters(node: item, defaults: merged, feedName: name, sourceType: sourceType)
        }

        // The feed's own rules (never inherited: `settings: filters:` holds the rules of every feed).
        let filters = try item["filters"].map { try filterRules($0, owner: "feed '\(name)'") } ?? []

        var declaration = FeedDeclaration(
            name: name, sourceType: sourceType, node: item, location: Self.itemLocation(item),
            parameters: parameters, credential: credential)
        declaration.filters = filters
        return declaration
    }

    /// Every parameter name some source type (or every feed) accepts.
    var anyParameterName: Set<String> {
        Set(FeedContext.commonParameters.map(\.name) + sources.values.flatMap { $0.parameters.map(\.name) })
    }

    /// Checks the type (and range) of `spec`'s value when present, through the typed accessors.
    func check(_ spec: ParameterSpec, in parameters: FeedParameters, maxPageSize: Int) throws {
        switch spec.kind {
        case .string where spec.name == "interval":
            if let node = parameters.value(spec.name) { _ = try PullInterval.seconds(node) }
        case .string: _ = try parameters.string(spec.name)
        case .secret: _ = try parameters.secret(spec.name)
        case .boolean: _ = try parameters.boolean(spec.name)
        case .url: _ = try parameters.url(spec.name)
        case .date: _ = try parameters.date(spec.name)
        case .mapping: _ = try parameters.mapping(spec.name)
        case .list where spec.name == "filters": break  // rules, read by filterRules(_:owner:)
        case .list: _ = try parameters.list(spec.name)
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

}
